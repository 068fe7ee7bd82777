import { appendFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { openModel } from "../adapters/llm/index.js";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { designerCorpus } from "./designer-corpus.js";
import { openSandbox } from "../adapters/sandbox/index.js";
import { parseConfig, readConfigFile, type Config } from "../config/index.js";
import { buildGates, textSimilarity } from "../core/admission/index.js";
import { EMPTY_LEARNING_POTENTIAL } from "../core/rewards/index.js";
import { designerPromptOf, designFunnel, parseDesign, promptExamplePackages, runDesignStep, type DesignFunnel } from "../core/selfplay/index.js";
import { packageId, type DesignRecord, type EnvironmentRecord, type EnvPackage } from "../spec/index.js";
import { admissionResources } from "./admission-resources.js";
import { MeteredModel } from "./metered-model.js";
import { poolPackages } from "./pool-packages.js";
import { modelOptionsOf } from "./model-options.js";

/** Flags of `envforge bench designer`. */
export interface BenchDesignerFlags {
  /** Model spec. @default config `model.spec` */
  readonly model?: string;
  /** Designs to sample. @default 8 */
  readonly designs?: number;
  readonly json?: boolean;
  /** Config file over the bench defaults. */
  readonly config?: string;
  /** Override `designer.repairTurns`. */
  readonly repairTurns?: number;
  /** Override `designer.repairMode`. */
  readonly repairMode?: "conversation" | "restart";
  /** Override `designer.repetitionPenalty`. */
  readonly repetitionPenalty?: number;
  /** Override `designer.format`. */
  readonly format?: "scaffold" | "class" | "tool";
  /** Override `designer.grammar`. */
  readonly grammar?: boolean;
  /** A `.jsonl` file to append every design record to (completions, verdicts, repair attempts), one line each. */
  readonly out?: string;
}

/** What `envforge bench designer --json` prints. */
export interface DesignerBenchResult extends DesignFunnel {
  readonly model: string;
  readonly format: string;
  readonly repairTurns: number;
  readonly repetitionPenalty: number;
  readonly repairMode: string;
  /** Whether the scaffold grammar constrained the replies (`designer.grammar`). */
  readonly grammar: boolean;
  readonly gates: readonly string[];
  /** Designs with an attempt whose package is a near-copy (text similarity ≥ `admission.textSimilarity`) of an example the prompt showed. */
  readonly nearCopies: number;
  /** Near-copies that were admitted (novelty must keep this at 0). */
  readonly nearCopiesAdmitted: number;
  readonly secondsPerDesign: number;
  /** Completion tokens sampled per design, all attempts. */
  readonly tokensPerDesign: number;
  readonly tokensPerSecond: number;
  /** Mean model seconds per design (generation only; the rest is admission). */
  readonly modelSecondsPerDesign: number;
}

/**
 * The bench's fixed setting, so runs compare: master seed 1, round 1, the shipped
 * corpus, the ten seeds as memory, the mechanical gates (self-review and
 * calibration skipped: they measure the model as a judge and a Solver, not as a
 * Designer), one play per hint condition for admitted designs. A config file
 * (`--config`) goes over this setting and flags over the file.
 *
 * @throws ConfigError for a missing or invalid config file, naming the key
 */
export function benchDesignerConfig(flags: BenchDesignerFlags): Config {
  const input = {
    seed: 1,
    plays: 1,
    admission: { skip: ["self-review", "calibration"] },
    designer: { designs: 8, ...flagDesigner(flags) },
    ...(flags.model === undefined ? {} : { model: { spec: flags.model } }),
  };
  if (flags.config === undefined) return parseConfig(input);
  // the file over the bench's fixed setting, flags over the file
  const file = readConfigFile(flags.config) as Record<string, Record<string, unknown> | undefined>;
  return parseConfig(
    {
      ...input,
      ...file,
      admission: { ...input.admission, ...file.admission },
      designer: { ...input.designer, ...file.designer, ...flagDesigner(flags) },
      ...(flags.model === undefined ? {} : { model: { ...file.model, spec: flags.model } }),
    },
    flags.config,
  );
}

/** The `designer` keys the flags set. */
function flagDesigner(flags: BenchDesignerFlags): Record<string, unknown> {
  return {
    ...(flags.designs === undefined ? {} : { designs: flags.designs }),
    ...(flags.repairTurns === undefined ? {} : { repairTurns: flags.repairTurns }),
    ...(flags.format === undefined ? {} : { format: flags.format }),
    ...(flags.repetitionPenalty === undefined ? {} : { repetitionPenalty: flags.repetitionPenalty }),
    ...(flags.repairMode === undefined ? {} : { repairMode: flags.repairMode }),
    ...(flags.grammar === undefined ? {} : { grammar: flags.grammar }),
  };
}

/**
 * `envforge bench designer`: the design funnel on fixed corpus documents, memory
 * and seeds ({@link benchDesignerConfig}): parse rate, pass rate per gate,
 * admitted fraction with and without repair turns, near-copies of the prompt's
 * own examples, tokens and seconds per design. Prints one line per design while
 * it runs (to stderr) and the result (text, or JSON with `--json`).
 */
export async function benchDesignerCommand(flags: BenchDesignerFlags, write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  const config = benchDesignerConfig(flags);
  // the run's starting pool: the seed games (pool.seeds) and pool.packages (e.g. envs/tool-seeds for the tool format)
  const seeds = [...(config.pool.seeds ? loadSeedPackages() : []), ...poolPackages(config)];
  const memory: EnvironmentRecord[] = seeds.map((pkg) => ({ id: packageId(pkg), package: pkg, round: null, scores: null }));
  const corpus = designerCorpus(config);
  const gates = buildGates(config.admission);
  const admission = admissionResources(config);
  const model = new MeteredModel(await openModel(config.model.spec, modelOptionsOf(config)));
  const sandbox = openSandbox(config.sandbox);
  const designs: DesignRecord[] = [];
  let nearCopies = 0;
  let nearCopiesAdmitted = 0;
  const started = performance.now();
  try {
    let learningPotential = EMPTY_LEARNING_POTENTIAL;
    for (let index = 0; index < config.designer.designs; index += 1) {
      const designStarted = performance.now();
      const step = { round: 1, index, config, corpus, memory };
      const result = await runDesignStep({ ...step, model, sandbox, gates, admission, policyVersion: 0, learningPotential, now: () => new Date() });
      learningPotential = result.learningPotential;
      designs.push(result.design);
      if (flags.out !== undefined) appendFileSync(flags.out, `${JSON.stringify({ model: model.id, format: config.designer.format, ...result.design, tokens: undefined })}\n`);
      const prompt = designerPromptOf(step);
      const shown = [...memory.filter((record) => prompt.exampleNames.includes(record.package.manifest.name)).map((record) => record.package), ...promptExamplePackages(prompt)];
      const copy = [result.design.completion, ...(result.design.repairs ?? []).map((attempt) => attempt.completion)].some((completion) => isNearCopy(completion, shown, config.admission.textSimilarity));
      if (copy) nearCopies += 1;
      if (copy && result.design.environmentId !== null) nearCopiesAdmitted += 1;
      const last = result.design.verdicts.at(-1);
      const outcome = result.design.environmentId !== null ? `admitted ${result.admitted?.environment.package.manifest.name}` : last?.status === "reject" ? `${last.gate}: ${last.reason}` : "rejected";
      process.stderr.write(`design ${index + 1}/${config.designer.designs}: ${outcome} after ${(result.design.repairs?.length ?? 0) + 1} attempt(s), ${((performance.now() - designStarted) / 1000).toFixed(1)} s\n`);
    }
  } finally {
    await sandbox.close();
    await model.close();
  }
  const seconds = (performance.now() - started) / 1000;
  const count = Math.max(1, designs.length);
  const result: DesignerBenchResult = {
    model: model.id,
    format: config.designer.format,
    repairTurns: config.designer.repairTurns,
    repetitionPenalty: config.designer.repetitionPenalty,
    repairMode: config.designer.repairMode,
    grammar: config.designer.grammar,
    gates: gates.map((gate) => gate.name),
    ...designFunnel(designs),
    nearCopies,
    nearCopiesAdmitted,
    secondsPerDesign: round(seconds / count),
    tokensPerDesign: round(model.tokens / count),
    tokensPerSecond: round(model.seconds === 0 ? 0 : model.tokens / model.seconds),
    modelSecondsPerDesign: round(model.seconds / count),
  };
  if (flags.json) {
    write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }
  const percent = (part: number, whole: number) => (whole === 0 ? "-" : `${Math.round((100 * part) / whole)} %`);
  write(`designer bench: ${result.model}, format ${result.format}, repair turns ${result.repairTurns} (${result.repairMode}), repetition penalty ${result.repetitionPenalty}, grammar ${result.grammar ? "on" : "off"}; gates ${result.gates.join(", ")}\n`);
  write(`machine: ${availableParallelism()} cores, load average ${loadavg().map((value) => value.toFixed(2)).join(" ")}\n`);
  write(`designs ${result.designs}: parsed ${result.parsed} (${percent(result.parsed, result.designs)}; first attempt ${result.parsedFirstAttempt}), admitted ${result.admitted} (${percent(result.admitted, result.designs)}; first attempt ${result.admittedFirstAttempt}), mean attempts ${result.meanAttempts.toFixed(2)}\n`);
  write(`per stage (final verdicts): ${Object.entries(result.perGate).map(([gate, count]) => `${gate} ${count.passed}/${count.ran}`).join(", ")}\n`);
  write(`per stage (all ${result.attempts} attempts): ${Object.entries(result.perGateAttempts).map(([gate, count]) => `${gate} ${count.passed}/${count.ran}`).join(", ")}\n`);
  write(`rejections: ${Object.entries(result.rejections).map(([reason, value]) => `${reason} ${value}`).join(", ") || "none"}\n`);
  write(`near-copies of the prompt's examples: ${result.nearCopies} (admitted ${result.nearCopiesAdmitted})\n`);
  write(`${result.secondsPerDesign} s per design (model ${result.modelSecondsPerDesign} s), ${result.tokensPerDesign} tokens per design, ${result.tokensPerSecond} tokens/s\n`);
  return 0;
}

function isNearCopy(completion: string, shown: readonly EnvPackage[], threshold: number): boolean {
  const parsed = parseDesign(completion, { origin: "designer", parentId: null, generation: 0, designerModel: null, promptHash: null, corpusDocumentIds: [], createdAt: new Date(0).toISOString() });
  return parsed.ok && shown.some((example) => textSimilarity(parsed.package, example) >= threshold);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}
