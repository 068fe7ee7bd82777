import { openSync, readSync, closeSync, statSync } from "node:fs";
import { GgmlType, readGgufFileInfo, type GgufFileInfo, type GgufTensorInfo } from "node-llama-cpp";
import { LoraAdapterError } from "../../spec/index.js";

/** Bytes per element of the tensor types a LoRA adapter is written in (others are not size-checked). */
const ELEMENT_BYTES: ReadonlyMap<GgmlType, number> = new Map([
  [GgmlType.F32, 4],
  [GgmlType.F16, 2],
  [GgmlType.BF16, 2],
]);

/** What {@link checkLoraAdapter} found in an adapter that passed. */
export interface LoraAdapterSummary {
  /** `general.architecture`, e.g. `gemma3`. */
  readonly architecture: string;
  /** `adapter.lora.alpha` (llama.cpp scales `B·A` by `alpha / rank`). */
  readonly alpha: number;
  /** LoRA pairs (adapted base tensors). */
  readonly pairs: number;
}

/**
 * Checks a GGUF LoRA adapter against the base model it is meant for, before llama.cpp
 * loads it — llama.cpp refuses a bad adapter with only "Failed to initialize LoRA
 * adapter" (the cause goes to its log), so the checks llama-adapter.cpp makes are
 * repeated here with messages that name the cause:
 * `general.type` is `adapter` and `adapter.type` is `lora`; the architecture equals the
 * base's; every `X.lora_a` / `X.lora_b` names a base tensor `X`, with `a.ne[0]` = the base's
 * `ne[0]` (inputs), `b.ne[1]` = the base's `ne[1]` (outputs) and `a.ne[1] = b.ne[0]` (rank);
 * and the file is as long as its float tensors need.
 *
 * @param filePath the adapter file
 * @param base the base model's GGUF info (`LlamaModel.fileInfo`, or `readGgufFileInfo` of the base file)
 * @throws LoraAdapterError with `problem` `missing`, `truncated`, `not_lora` or `base_mismatch`
 */
export async function checkLoraAdapter(filePath: string, base: GgufFileInfo): Promise<LoraAdapterSummary> {
  let size: number;
  try {
    size = statSync(filePath).size;
  } catch (error) {
    throw new LoraAdapterError("missing", `LoRA adapter ${filePath} does not exist`, { cause: error });
  }
  if (readMagic(filePath) !== "GGUF") {
    throw new LoraAdapterError(size < 4 ? "truncated" : "not_lora", `LoRA adapter ${filePath} is not a GGUF file (${size} bytes, no GGUF magic)`);
  }
  let info: GgufFileInfo;
  try {
    info = await readGgufFileInfo(filePath, { logWarnings: false, sourceType: "filesystem" });
  } catch (error) {
    throw new LoraAdapterError("truncated", `LoRA adapter ${filePath} is truncated or corrupt: its GGUF header cannot be read (${(error as Error).message})`, { cause: error });
  }
  if (info.infoEndOffset === undefined || info.infoEndOffset > size) {
    throw new LoraAdapterError("truncated", `LoRA adapter ${filePath} is truncated: its GGUF header needs ${info.infoEndOffset ?? "more than"} bytes, the file has ${size}`);
  }
  const metadata = info.metadata as unknown as { general?: { type?: unknown; architecture?: unknown }; adapter?: { type?: unknown; lora?: { alpha?: unknown } } };
  if (metadata.general?.type !== "adapter" || metadata.adapter?.type !== "lora") {
    throw new LoraAdapterError(
      "not_lora",
      `${filePath} is not a GGUF LoRA adapter (general.type = ${String(metadata.general?.type)}, adapter.type = ${String(metadata.adapter?.type)}; expected adapter / lora)`,
    );
  }
  const architecture = String(metadata.general.architecture);
  const baseArchitecture = String(base.metadata.general.architecture);
  if (architecture !== baseArchitecture) {
    throw new LoraAdapterError(
      "base_mismatch",
      `LoRA adapter ${filePath} is for another base model: its architecture is ${architecture}, the loaded model's is ${baseArchitecture}`,
    );
  }
  const baseTensors = new Map((base.fullTensorInfo ?? base.tensorInfo ?? []).map((tensor) => [tensor.name, tensor]));
  const tensors = info.fullTensorInfo ?? info.tensorInfo ?? [];
  const pairs = new Map<string, { a?: GgufTensorInfo; b?: GgufTensorInfo }>();
  let needed = 0;
  for (const tensor of tensors) {
    const match = /^(.*)\.lora_([ab])$/.exec(tensor.name);
    if (match === null) throw new LoraAdapterError("not_lora", `LoRA adapter ${filePath} holds tensor ${tensor.name}, which is not a lora_a / lora_b matrix`);
    const [, target, kind] = match as unknown as [string, string, "a" | "b"];
    pairs.set(target, { ...pairs.get(target), [kind]: tensor });
    const bytes = ELEMENT_BYTES.get(tensor.ggmlType);
    if (bytes !== undefined) needed = Math.max(needed, Number(tensor.fileOffset) + bytes * tensor.dimensions.reduce<number>((product, dimension) => product * Number(dimension), 1));
  }
  if (size < needed) {
    throw new LoraAdapterError("truncated", `LoRA adapter ${filePath} is truncated: its tensors need ${needed} bytes, the file has ${size}`);
  }
  for (const [target, { a, b }] of pairs) {
    if (a === undefined || b === undefined) throw new LoraAdapterError("not_lora", `LoRA adapter ${filePath} has ${target}.lora_${a ? "a" : "b"} without its partner`);
    const baseTensor = baseTensors.get(target);
    if (baseTensor === undefined) {
      throw new LoraAdapterError("base_mismatch", `LoRA adapter ${filePath} is for another base model: the loaded model has no tensor ${target}`);
    }
    const [inputs, outputs] = baseTensor.dimensions.map(Number);
    const [aInputs, aRank] = a.dimensions.map(Number);
    const [bRank, bOutputs] = b.dimensions.map(Number);
    if (aInputs !== inputs || bOutputs !== outputs || aRank !== bRank) {
      throw new LoraAdapterError(
        "base_mismatch",
        `LoRA adapter ${filePath} is for another base model: ${target} is ${inputs}→${outputs} in the loaded model, the adapter's lora_a is [${a.dimensions.join(", ")}] and lora_b [${b.dimensions.join(", ")}]`,
      );
    }
  }
  return { architecture, alpha: Number(metadata.adapter.lora?.alpha ?? 0), pairs: pairs.size };
}

function readMagic(filePath: string): string {
  const descriptor = openSync(filePath, "r");
  try {
    const buffer = Buffer.alloc(4);
    const read = readSync(descriptor, buffer, 0, 4, 0);
    return buffer.subarray(0, read).toString("latin1");
  } finally {
    closeSync(descriptor);
  }
}
