import { EnvManifestSchema, MAX_LEVELS, type EnvManifest, type EnvPackage } from "../../spec/index.js";
import type { RlveEntry, RlveModule } from "./rlve-catalogue.js";
import { BASE_CLASSES, GENERATION_ATTEMPTS, ORACLE, WRAPPER } from "./rlve-python.js";

/** Where RLVE lives, for the generated files' attribution. */
export const RLVE_HOME = "https://github.com/Zhiyuan-Zeng/RLVE";

/** Names an RLVE module may import from `Gym`: the base classes the generated `env.py` defines itself. */
export const GYM_NAMES_PROVIDED: ReadonlySet<string> = new Set([
  "Gym.environment.VerifiableEnvironment",
  "Gym.environment.timeout",
  "Gym.environment.TimeoutException",
  "Gym.environment.manual_seed",
  "Gym.parameter_controller.ParameterController",
]);

/**
 * The hint of every imported package: generic advice, the same for all, which cannot hold an
 * instance's answer (it names no value and never writes the answer markers next to each other).
 */
export const RLVE_HINT =
  "Work the problem out step by step and check your result against every condition in the statement before replying. " +
  "Then write only the final answer, in exactly the format the statement asks for, between the answer tags.";

/** Why an RLVE environment cannot become an envforge package (stable codes, counted in docs/benchmarks/levels.md). */
export type RlveSkipReason =
  /** The environment or controller module is not where the registry says. */
  | "missing_source"
  /** The environment or controller imports a module outside the standard library (networkx, numpy, sympy). */
  | "needs_third_party_module"
  /** It imports something from `Gym` other than the base classes. */
  | "imports_other_gym_module"
  /** Its generator stores no `reference_answer` (only `gold_answer`, the optimal objective value, or nothing), so there is no oracle. */
  | "no_reference_answer"
  /** `reset` fails at level 0 in the sandbox (crash, timeout). */
  | "reset_failed";

/** An environment left out, with the reason code and a sentence naming the evidence. */
export interface RlveSkip {
  readonly identifier: string;
  readonly reason: RlveSkipReason;
  readonly message: string;
}

/**
 * The envforge name of an RLVE identifier: `rlve-` and the identifier in kebab case
 * (`Minimum_DominatingSet_Grid` → `rlve-minimum-dominating-set-grid`, `WYRLevelingGround` →
 * `rlve-wyr-leveling-ground`).
 */
export function rlvePackageName(identifier: string): string {
  const kebab = identifier
    .replace(/([a-z0-9])([A-Z])/g, "$1-$2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1-$2")
    .replace(/[^A-Za-z0-9]+/g, "-")
    .toLowerCase()
    .replace(/^-+|-+$/g, "");
  return `rlve-${kebab}`.slice(0, 64).replace(/-+$/, "");
}

/**
 * Whether `entry` can be imported, judged from its sources alone: both modules present and
 * defining their classes, nothing imported outside the standard library, from `Gym` only the
 * base classes, and a generator that stores `reference_answer` (the oracle's answer). Null when
 * it can; the reason otherwise.
 */
export function sourceProblem(entry: RlveEntry): RlveSkip | null {
  const skip = (reason: RlveSkipReason, message: string): RlveSkip => ({ identifier: entry.identifier, reason, message });
  const modules: [string, RlveModule, string | null][] = [
    ["environment", entry.environment, entry.environmentClass],
    ["parameter controller", entry.controller, entry.controllerClass],
  ];
  for (const [what, module, className] of modules) {
    if (module.missing || className === null) return skip("missing_source", `the ${what} module ${module.path ?? "(not registered)"} is not installed`);
    if (!module.definesClass) return skip("missing_source", `${module.path} does not define ${className}`);
  }
  for (const [what, module] of modules) {
    if (module.missing) continue;
    if (module.thirdParty.length > 0) return skip("needs_third_party_module", `the ${what} (${module.path}) imports ${module.thirdParty.join(", ")}`);
    const other = module.fromGym.filter((name) => !GYM_NAMES_PROVIDED.has(name));
    if (other.length > 0) return skip("imports_other_gym_module", `the ${what} (${module.path}) imports ${other.join(", ")}`);
  }
  if (!entry.environment.missing && !/["']reference_answer["']/.test(entry.environment.source)) {
    const gold = /["']gold_answer["']/.test(entry.environment.source);
    return skip("no_reference_answer", `${entry.environment.path} stores no reference_answer${gold ? " (only gold_answer, the optimal objective value, not a solution)" : ""}`);
  }
  return null;
}

/** `source` with its imports from `Gym` turned into `pass` statements (the names are defined above it). */
function withoutGymImports(module: Extract<RlveModule, { missing: false }>): string {
  const lines = module.source.split("\n");
  for (const [first, last] of module.gymImportLines) {
    for (let line = first; line <= last; line += 1) {
      const text = lines[line - 1] ?? "";
      const indent = /^\s*/.exec(text)?.[0] ?? "";
      lines[line - 1] = line === first ? `${indent}pass  # envforge: defined above; RLVE's line was: ${text.trim()}` : `${indent}# ${text.trim()}`;
    }
  }
  return lines.join("\n");
}

/**
 * The self-contained, standard-library-only `env.py` of an importable entry: envforge's base
 * classes, RLVE's environment module and parameter-controller module (their `Gym` imports
 * turned into `pass`), and the wrapper class `RlveEnvironment` with `reset(seed, level)` and
 * `step(action)`.
 *
 * @param version the rlve-gym version read, for the attribution line
 * @throws Error when `entry` is not importable ({@link sourceProblem})
 */
export function rlveEnvSource(entry: RlveEntry, version: string | null): string {
  const environment = entry.environment;
  const controller = entry.controller;
  if (environment.missing || controller.missing || entry.controllerClass === null) throw new Error(`${entry.identifier} has no sources to import`);
  const wrapper = WRAPPER.replaceAll("__ENVIRONMENT_CLASS__", entry.environmentClass)
    .replaceAll("__CONTROLLER_CLASS__", entry.controllerClass)
    .replaceAll("__IDENTIFIER__", entry.identifier)
    .replaceAll("__GENERATION_ATTEMPTS__", String(GENERATION_ATTEMPTS));
  return [
    `"""RLVE's ${entry.identifier} environment as an envforge package.`,
    "",
    `Generated by \`envforge import rlve\` from rlve-gym ${version ?? "(unknown version)"}: ${environment.path} and`,
    `${controller.path}, from RLVE (${RLVE_HOME}, MIT licence).`,
    "Sections: envforge's standard-library base classes, in place of RLVE's Gym/environment.py and",
    "Gym/parameter_controller.py (which import torch and numpy to seed them); RLVE's environment module;",
    "RLVE's parameter-controller module; envforge's wrapper (reset(seed, level), step(action)).",
    '"""',
    "",
    "# ---- envforge: base classes (standard library only)",
    BASE_CLASSES.trim(),
    "",
    "",
    `# ---- RLVE: ${environment.path}`,
    withoutGymImports(environment).trimEnd(),
    "",
    "",
    `# ---- RLVE: ${controller.path}`,
    withoutGymImports(controller).trimEnd(),
    "",
    "",
    "# ---- envforge: the environment (one RLVE problem per episode, one reply)",
    wrapper.trim(),
    "",
  ].join("\n");
}

/** What the importer learned by playing the package in the sandbox, for its manifest. */
export interface RlveManifestFacts {
  /** Levels declared (each one reset and won by the oracle in the probe), 1..{@link MAX_LEVELS}. */
  readonly levelCount: number;
  /** The level's parameter set (scalars) at level 0 and at the last level, from the probe's step info. */
  readonly firstParameters: Readonly<Record<string, unknown>> | null;
  readonly lastParameters: Readonly<Record<string, unknown>> | null;
  /** The first observation at level 0, seed 0 (quoted in the description, shortened). */
  readonly example: string | null;
  /** ISO-8601 time of the import (provenance). */
  readonly createdAt: string;
  readonly version: string | null;
}

/** Longest example problem quoted in a description, characters. */
export const EXAMPLE_CHARS = 1500;

function words(identifier: string): string {
  return rlvePackageName(identifier).slice("rlve-".length).replaceAll("-", " ");
}

function levelDescription(facts: RlveManifestFacts): string {
  const head = "level L is RLVE's parameter controller after L update() calls (one of its parameter sets, chosen by the seed)";
  const shown = (parameters: Readonly<Record<string, unknown>> | null) => (parameters === null ? "" : JSON.stringify(parameters));
  const first = shown(facts.firstParameters);
  const last = shown(facts.lastParameters);
  const full = first === "" ? head : `${head}: level 0 ${first}${facts.levelCount > 1 && last !== "" ? `, level ${facts.levelCount - 1} ${last}` : ""}`;
  return full.length <= 300 ? full : `${full.slice(0, 299)}…`;
}

/**
 * The manifest of an imported RLVE environment: a single-turn levelled family, reward RLVE's
 * score in [−1, 1] (1 whenever RLVE's own accuracy rule counts the reply correct), a win at 1.
 *
 * @throws Error when the result does not match {@link EnvManifestSchema} (a bug of the importer)
 */
export function rlveManifest(entry: RlveEntry, facts: RlveManifestFacts): EnvManifest {
  const example = facts.example === null ? "" : facts.example.length > EXAMPLE_CHARS ? `${facts.example.slice(0, EXAMPLE_CHARS)}…` : facts.example;
  const description = [
    `RLVE's ${entry.identifier} environment (rlve-gym ${facts.version ?? "?"}), imported by envforge. Each episode is one problem, generated from the seed at the level's parameters; the agent replies once, with its final answer between <answer> and </answer>.`,
    "The reward is RLVE's scorer in [-1, 1]: 1 for a correct answer (RLVE's accuracy rule), partial credit or 0 for a wrong one where RLVE gives it, negative for an invalid one; a reply whose answer cannot be read scores -1 and is marked invalid. A win is reward 1.",
    example === "" ? "" : `Example (level 0, seed 0):\n${example}`,
  ]
    .filter((part) => part !== "")
    .join("\n\n");
  return EnvManifestSchema.parse({
    schemaVersion: 1,
    name: rlvePackageName(entry.identifier),
    title: `RLVE ${entry.identifier}`,
    description: description.slice(0, 4000),
    interaction: "single-turn",
    maxTurns: 1,
    rewardRange: [-1, 1],
    passThreshold: 1,
    hint: RLVE_HINT,
    skills: ["verifiable reasoning"],
    scenario: `RLVE: ${words(entry.identifier)}`.slice(0, 200),
    difficulty: {},
    levels: { count: Math.max(1, Math.min(MAX_LEVELS, facts.levelCount)), description: levelDescription(facts) },
    provenance: { origin: "seed", parentId: null, generation: 0, designerModel: null, promptHash: null, corpusDocumentIds: [], createdAt: facts.createdAt },
  });
}

/** The generated `oracle.py` (the same for every RLVE environment). */
export function rlveOracleSource(): string {
  return ORACLE;
}

/** The whole package of an importable entry, given the probe's facts. */
export function rlvePackage(entry: RlveEntry, envSource: string, facts: RlveManifestFacts): EnvPackage {
  return { manifest: rlveManifest(entry, facts), envSource, oracleSource: rlveOracleSource() };
}
