import { createHash } from "node:crypto";
import { z } from "zod";
import type { EnvProgram } from "./sandbox.js";
import type { TerminalTask } from "./terminal.js";
import type { BfclEntry } from "./bfcl.js";
import type { OpenEnvTask } from "./openenv.js";
import { MAX_TOOLS, ToolDefinitionSchema } from "./tool-call.js";
import { LevelOutOfRangeError } from "./errors.js";

/**
 * Where an environment came from: the seed set, a Designer completion or an
 * evolution step, with enough to trace its lineage.
 */
export const ProvenanceSchema = z
  .object({
    /** `seed` (hand-written for the project), `designer` (a model's completion) or `evolution`. */
    origin: z.enum(["seed", "designer", "evolution"]),
    /** Content id of the parent environment, or null for roots. @default null */
    parentId: z.string().nullable().default(null),
    /** Generation in the lineage; 0 for roots. @default 0 */
    generation: z.number().int().min(0).default(0),
    /** Model spec of the Designer that wrote it, or null. @default null */
    designerModel: z.string().nullable().default(null),
    /** sha256 of the Designer prompt, or null. @default null */
    promptHash: z.string().nullable().default(null),
    /** Ids of the corpus documents shown in the Designer prompt. @default [] */
    corpusDocumentIds: z.array(z.string()).default([]),
    /** ISO-8601 creation time. */
    createdAt: z.string().datetime(),
  })
  .strict();

/** Hard cap on the levels a family may declare. */
export const MAX_LEVELS = 64;

/**
 * The levels of an environment family (RLVE's difficulty levels): `count`
 * instances sizes or horizons, level 0 the easiest, and one sentence saying
 * what a higher level changes. `reset(seed, level)` builds an instance at
 * `level` ∈ 0..count−1. A manifest without `levels` is a family of one level
 * (level 0), and its program is called as `reset(seed)`.
 */
export const LevelsSchema = z
  .object({
    /** Number of declared levels, 1..{@link MAX_LEVELS}. */
    count: z.number().int().min(1).max(MAX_LEVELS),
    /** What a higher level changes, e.g. `the range grows from 1..16 to 1..2048`. */
    description: z.string().min(1).max(300).refine((text) => text.trim().length > 0, "must not be blank"),
  })
  .strict();

/** Parsed `levels` block of a manifest. */
export type Levels = z.infer<typeof LevelsSchema>;

/**
 * The manifest of an environment package (`env.json`). Field names are camelCase.
 * The episode return (sum of step rewards) is clipped to `rewardRange`; an episode
 * whose return reaches `passThreshold` is a win.
 */
export const EnvManifestSchema = z
  .object({
    /** Format version; currently 1. */
    schemaVersion: z.literal(1),
    /** kebab-case name, e.g. `shortest-path`. */
    name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,63}$/, "kebab-case, 1-64 characters"),
    /** One-line title. */
    title: z.string().min(1).max(200),
    /** What the agent sees, what it must do, how it is scored. */
    description: z.string().min(1).max(4000),
    /** `single-turn` (one answer) or `multi-turn` (stateful dialogue). */
    interaction: z.enum(["single-turn", "multi-turn"]),
    /** Hard cap on `step` calls per episode (1..200). */
    maxTurns: z.number().int().min(1).max(200),
    /** Inclusive [low, high] range of the episode return. */
    rewardRange: z
      .tuple([z.number().finite(), z.number().finite()])
      .refine(([low, high]) => low < high, "rewardRange must satisfy low < high"),
    /** Episode return at or above which the episode counts as a win. */
    passThreshold: z.number().finite(),
    /** Privileged advice for the Solver; must not contain the answer. */
    hint: z.string().min(1).max(2000),
    /** Skill tags, e.g. `["graph search"]`. */
    skills: z.array(z.string().min(1).max(60)).min(1).max(8),
    /** Short scenario phrase, e.g. `road network routing`. */
    scenario: z.string().min(1).max(200),
    /** Difficulty knobs the program uses (numbers, strings or booleans). @default {} */
    difficulty: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).default({}),
    /** Declared levels; absent: one level. @default undefined */
    levels: LevelsSchema.optional(),
    /**
     * The tools of a tool-use environment (OpenAI-style function definitions, names unique): the
     * agent's replies are then tool calls (or a final message), and `step` receives each parsed
     * call. Absent: a text environment. @default undefined
     */
    tools: z
      .array(ToolDefinitionSchema)
      .min(1)
      .max(MAX_TOOLS)
      .refine((tools) => new Set(tools.map((tool) => tool.name)).size === tools.length, "tool names must be unique")
      .optional(),
    provenance: ProvenanceSchema,
  })
  .strict()
  .refine((m) => m.passThreshold > m.rewardRange[0] && m.passThreshold <= m.rewardRange[1], {
    message: "passThreshold must lie in (rewardRange[0], rewardRange[1]]",
    path: ["passThreshold"],
  });

/** Parsed `env.json`. */
export type EnvManifest = z.infer<typeof EnvManifestSchema>;

/** Number of levels `manifest` declares (1 when it declares none). */
export function levelCount(manifest: Pick<EnvManifest, "levels">): number {
  return manifest.levels?.count ?? 1;
}

/**
 * The level argument `reset` gets for `level` of `manifest`: the level itself
 * for a levelled family, `undefined` (plain `reset(seed)`) for a family of one
 * level, so that programs written before levels keep working.
 *
 * @throws LevelOutOfRangeError when `level` is not an integer in 0..levelCount−1
 */
export function resetLevel(manifest: Pick<EnvManifest, "levels" | "name">, level: number | undefined): number | undefined {
  checkLevel(manifest, level ?? 0);
  return manifest.levels === undefined ? undefined : (level ?? 0);
}

/**
 * Checks that `level` is one of `manifest`'s declared levels.
 *
 * @throws LevelOutOfRangeError naming the declared range otherwise
 */
export function checkLevel(manifest: Pick<EnvManifest, "levels" | "name">, level: number): void {
  if (!isDeclaredLevel(manifest, level)) throw new LevelOutOfRangeError(manifest.name, level, levelCount(manifest));
}

/** Whether `value` is one of `manifest`'s declared levels (an integer in 0..levelCount−1). */
export function isDeclaredLevel(manifest: Pick<EnvManifest, "levels">, value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 && value < levelCount(manifest);
}
/** Provenance block of an {@link EnvManifest}. */
export type Provenance = z.infer<typeof ProvenanceSchema>;

/**
 * A complete environment package: manifest plus program sources.
 * `envSource` (`env.py`) defines exactly one class with `reset(seed) -> str`
 * (`reset(seed, level) -> str` when the manifest declares `levels`) and
 * `step(action) -> (observation, reward, terminated, truncated, info)`;
 * `oracleSource` (`oracle.py`) defines `act(env, observation) -> str`, a privileged
 * reference policy that reaches full reward on any seed.
 */
export interface EnvPackage {
  readonly manifest: EnvManifest;
  readonly envSource: string;
  readonly oracleSource: string;
  /**
   * A terminal task instead of a Python program (docs/terminal-environments.md): episodes run in
   * the terminal runtime, `envSource` holds the task's `tests/test.sh` and `oracleSource` its
   * `solution/solve.sh` (so the content id and novelty see them), and `manifest.maxTurns` is the
   * episode's command budget. Absent: an environment program.
   */
  readonly terminal?: TerminalTask;
  /**
   * An OpenEnv environment package instead of an envforge program (docs/openenv-import.md): episodes
   * run its environment class in the terminal jail, `envSource` holds its environment module and
   * `oracleSource` its optional `oracle.py`. Absent: an environment program.
   */
  readonly openenv?: OpenEnvTask;
  /**
   * A BFCL v4 multi-turn entry instead of an envforge program (docs/bfcl.md): episodes are played by
   * BFCL's own executor and scored by its checker through the BFCL bridge; the manifest's tools are
   * the entry's functions, `envSource` and `oracleSource` are empty. Absent: an environment program.
   */
  readonly bfcl?: BfclEntry;
}

/**
 * The program a sandbox session loads for `pkg`: its sources (the oracle only with `oracle`), its
 * reward range and, for a terminal task, the task with its command budget: `manifest.maxTurns`,
 * or `maxTurns` when that is lower (a Solver's turn cap, `solver.maxTurns`), so the task's tests
 * run after the last command the episode loop plays.
 */
export function programOf(pkg: EnvPackage, options: { readonly oracle: boolean; readonly maxTurns?: number }): EnvProgram {
  const maxTurns = Math.max(1, Math.min(pkg.manifest.maxTurns, options.maxTurns ?? pkg.manifest.maxTurns));
  return {
    envSource: pkg.envSource,
    oracleSource: options.oracle ? pkg.oracleSource : null,
    rewardRange: pkg.manifest.rewardRange,
    ...(pkg.terminal === undefined ? {} : { terminalEpisode: { task: pkg.terminal, maxTurns } }),
    ...(pkg.openenv === undefined ? {} : { openenvEpisode: { task: pkg.openenv, withOracle: options.oracle } }),
    ...(pkg.bfcl === undefined ? {} : { bfclEpisode: { entry: pkg.bfcl } }),
  };
}

/** The single-JSON-document form of a package (`envforge` package exchange format). */
export const EnvPackageDocumentSchema = z
  .object({
    manifest: EnvManifestSchema,
    files: z.object({ "env.py": z.string(), "oracle.py": z.string() }).strict(),
  })
  .strict();

/** Serialised single-document form of an {@link EnvPackage}. */
export type EnvPackageDocument = z.infer<typeof EnvPackageDocumentSchema>;

/**
 * Content identity of a package: sha256 over the canonical JSON of the manifest
 * without provenance, both sources and, for a terminal task, the digest of its folder's files
 * (`TerminalTask.filesDigest`). Two packages with the same task and code
 * have the same id whoever wrote them and whenever.
 *
 * Memoised per package object (packages are immutable): admission asks for the id of every pool
 * entry for every candidate.
 *
 * @returns `env-` followed by the first 16 hex digits of the sha256
 */
export function packageId(pkg: EnvPackage): string {
  const known = packageIds.get(pkg);
  if (known !== undefined) return known;
  const id = computePackageId(pkg);
  packageIds.set(pkg, id);
  return id;
}

const packageIds = new WeakMap<EnvPackage, string>();

function computePackageId(pkg: EnvPackage): string {
  const { provenance: _provenance, ...task } = pkg.manifest;
  const hash = createHash("sha256");
  hash.update(canonicalJson(task));
  hash.update("\0");
  hash.update(pkg.envSource);
  hash.update("\0");
  hash.update(pkg.oracleSource);
  // a terminal task: its whole folder (Dockerfile, data files, instruction), not only tests and solution
  if (pkg.terminal?.filesDigest !== undefined) hash.update(`\0${pkg.terminal.filesDigest}`);
  if (pkg.openenv !== undefined) hash.update(`\0${pkg.openenv.filesDigest}`);
  if (pkg.bfcl !== undefined) hash.update(`\0bfcl:${pkg.bfcl.id}`);
  return `env-${hash.digest("hex").slice(0, 16)}`;
}

/** JSON with object keys sorted at every depth, for hashing. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, inner]) => [key, sortKeys(inner)]));
  }
  return value;
}
