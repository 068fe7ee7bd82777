import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { LoraAdapterError } from "../../spec/index.js";

/** The config file of a peft adapter folder. */
export const PEFT_CONFIG_FILE = "adapter_config.json";
/** The weights file of a peft adapter folder (safetensors). */
export const PEFT_WEIGHTS_FILE = "adapter_model.safetensors";

/** Largest safetensors header read, bytes (the format's own limit is 100 MB). */
const MAX_HEADER_BYTES = 100_000_000;

/** What {@link checkPeftAdapter} read from a complete adapter folder. */
export interface PeftAdapterSummary {
  /** The folder checked. */
  readonly folder: string;
  /** `r` in `adapter_config.json`. */
  readonly rank: number;
  /** `lora_alpha` in `adapter_config.json`. */
  readonly alpha: number;
  /** `target_modules` in `adapter_config.json` (a string such as `all-linear` becomes a one-element list). */
  readonly targetModules: readonly string[];
  /** Tensors in `adapter_model.safetensors`. */
  readonly tensors: number;
  /** Size of `adapter_model.safetensors`, bytes. */
  readonly bytes: number;
}

/**
 * Checks that `folder` holds a complete peft LoRA adapter, as vLLM's and SGLang's runtime LoRA
 * loading read it: `adapter_config.json` is whole JSON with `peft_type` "LORA", a positive integer
 * `r` and a numeric `lora_alpha`; `adapter_model.safetensors` has a whole header (8-byte
 * little-endian length, then JSON) whose tensors' `data_offsets` end exactly at the end of the
 * file, with LoRA matrices (`lora_A` / `lora_B` keys) among them. It reads the header only.
 *
 * @throws LoraAdapterError `missing` (no folder or no file), `truncated` (config not whole JSON,
 *   weights shorter than their header or their tensors need), `not_lora` (not a LoRA config, or
 *   weights without LoRA matrices or with bytes past their tensors)
 */
export function checkPeftAdapter(folder: string): PeftAdapterSummary {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new LoraAdapterError("missing", `LoRA adapter folder ${folder} does not exist`);
  const configPath = join(folder, PEFT_CONFIG_FILE);
  const weightsPath = join(folder, PEFT_WEIGHTS_FILE);
  for (const path of [configPath, weightsPath]) {
    if (!existsSync(path)) throw new LoraAdapterError("missing", `LoRA adapter folder ${folder} has no ${path.slice(folder.length + 1)}`);
  }
  let config: { peft_type?: unknown; r?: unknown; lora_alpha?: unknown; target_modules?: unknown };
  try {
    config = JSON.parse(readFileSync(configPath, "utf8")) as typeof config;
  } catch (error) {
    throw new LoraAdapterError("truncated", `${configPath} is not complete JSON (${(error as Error).message}); the adapter was not written whole`, { cause: error });
  }
  if (config === null || typeof config !== "object" || config.peft_type !== "LORA") {
    throw new LoraAdapterError("not_lora", `${configPath} is not a LoRA adapter's config (peft_type ${JSON.stringify(config?.peft_type)}, expected "LORA")`);
  }
  if (typeof config.r !== "number" || !Number.isInteger(config.r) || config.r < 1 || typeof config.lora_alpha !== "number") {
    throw new LoraAdapterError("not_lora", `${configPath} gives no positive integer r and numeric lora_alpha (r ${JSON.stringify(config.r)}, lora_alpha ${JSON.stringify(config.lora_alpha)})`);
  }
  const targetModules = typeof config.target_modules === "string" ? [config.target_modules] : Array.isArray(config.target_modules) ? config.target_modules.map(String) : [];
  const { tensors, bytes } = checkSafetensors(weightsPath);
  return { folder, rank: config.r, alpha: config.lora_alpha, targetModules, tensors, bytes };
}

/** Tensor count and file size of a complete safetensors file of LoRA matrices. */
function checkSafetensors(path: string): { tensors: number; bytes: number } {
  const descriptor = openSync(path, "r");
  try {
    const size = fstatSync(descriptor).size;
    const prefix = Buffer.alloc(8);
    if (size < 8 || readSync(descriptor, prefix, 0, 8, 0) < 8) throw new LoraAdapterError("truncated", `${path} has ${size} bytes, fewer than a safetensors header needs`);
    const headerLength = Number(prefix.readBigUInt64LE(0));
    if (headerLength > MAX_HEADER_BYTES) throw new LoraAdapterError("not_lora", `${path} announces a ${headerLength}-byte header: not a safetensors file`);
    if (8 + headerLength > size) throw new LoraAdapterError("truncated", `${path} has ${size} bytes, fewer than its ${headerLength}-byte header needs`);
    const headerBytes = Buffer.alloc(headerLength);
    readSync(descriptor, headerBytes, 0, headerLength, 8);
    let header: Record<string, { data_offsets?: unknown }>;
    try {
      header = JSON.parse(headerBytes.toString("utf8")) as typeof header;
    } catch (error) {
      throw new LoraAdapterError("not_lora", `${path} has a header that is not JSON: not a safetensors file`, { cause: error });
    }
    const names = Object.keys(header).filter((name) => name !== "__metadata__");
    const end = Math.max(0, ...names.map((name) => {
      const offsets = header[name]?.data_offsets;
      return Array.isArray(offsets) && typeof offsets[1] === "number" ? offsets[1] : Number.POSITIVE_INFINITY;
    }));
    const data = size - 8 - headerLength;
    if (!Number.isFinite(end)) throw new LoraAdapterError("not_lora", `${path} has a tensor without data_offsets: not a safetensors file`);
    if (end > data) throw new LoraAdapterError("truncated", `${path} has ${data} bytes of tensor data, its header needs ${end}: the adapter was not written whole`);
    if (end < data) throw new LoraAdapterError("not_lora", `${path} has ${data - end} bytes past its last tensor: not a safetensors file`);
    if (!names.some((name) => name.includes("lora_A")) || !names.some((name) => name.includes("lora_B"))) {
      throw new LoraAdapterError("not_lora", `${path} holds no lora_A and lora_B matrices (${names.length} tensors)`);
    }
    return { tensors: names.length, bytes: size };
  } finally {
    closeSync(descriptor);
  }
}
