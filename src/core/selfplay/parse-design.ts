import { z } from "zod";
import { EnvManifestSchema, MAX_LEVELS, reject, type EnvPackage, type Provenance, type RejectVerdict, type VerdictReason } from "../../spec/index.js";
import { expandScaffold, isScaffoldSource, missingScaffoldFunctions, readModuleConstants, SCAFFOLD_FUNCTIONS } from "../scaffold/index.js";

/** Result of {@link parseDesign}: a package, or a reject verdict of the `parse` stage. */
export type ParsedDesign = { readonly ok: true; readonly package: EnvPackage } | { readonly ok: false; readonly verdict: RejectVerdict };

interface CodeBlock {
  readonly language: string;
  readonly body: string;
}

/** Task fields the Designer writes; everything else has a default. */
const DesignedManifest = z
  .object({
    name: z.string().optional(),
    title: z.string().min(1),
    description: z.string().min(1),
    maxTurns: z.coerce.number().int().min(1).max(200).default(1),
    hint: z.string().min(1),
    skills: z.union([z.array(z.string()), z.string().transform((skill) => [skill])]).default(["general"]),
    scenario: z.string().min(1).default("puzzle"),
    rewardRange: z.tuple([z.number(), z.number()]).default([0, 1]),
    passThreshold: z.number().default(1),
    difficulty: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).default({}),
    /** Levels of a levelled family: a count (module constant `LEVELS`) or the manifest's `{count, description}`. */
    levels: z.union([z.coerce.number().int().min(1).max(MAX_LEVELS), z.object({ count: z.number(), description: z.string() })]).optional(),
    /** What a higher level changes (module constant `LEVEL_DESCRIPTION`). */
    levelDescription: z.string().min(1).max(300).optional(),
    /** A tool environment's tools (the Designer's tool mode), checked by the manifest schema. */
    tools: z.array(z.unknown()).optional(),
  })
  .passthrough();

/** The manifest's `levels` of a design: none for one level, else the count and what a level changes. */
function designedLevels(levels: z.infer<typeof DesignedManifest>["levels"], description: string | undefined): { count: number; description: string } | undefined {
  if (levels === undefined) return undefined;
  if (typeof levels === "object") return levels;
  return levels > 1 ? { count: levels, description: description ?? "a higher level builds a larger instance" } : undefined;
}

/**
 * Parses a Designer completion into an environment package. Two formats:
 * - free-form: fenced blocks in any order; the JSON block is the first one that
 *   parses as an object; `env.py` is the block defining a class with `reset` and
 *   `step`; `oracle.py` the block defining `act` (it may be the same block);
 * - scaffolded (`core/scaffold`): one Python block defining `generate`, `render`
 *   and `solve`, with the manifest fields as module constants (`NAME`, `TITLE`,
 *   `DESCRIPTION`, `HINT`, `SKILLS`, `SCENARIO`, `MAX_TURNS`, and for a levelled
 *   family `LEVELS` with `LEVEL_DESCRIPTION`, `generate(rng, level)`) or in a JSON block;
 *   envforge's template supplies the class and the oracle.
 * A completion without fences whose text is a scaffolded design is read as one
 * block. Never throws: every failure is a `parse` reject verdict with reason
 * `unparseable`, `missing_environment`, `missing_oracle` or `invalid_manifest`,
 * whose message says what to fix (it is sent back on a repair turn).
 *
 * @param completion raw model output (untrusted)
 * @param provenance provenance to stamp on the package
 */
export function parseDesign(completion: string, provenance: Provenance): ParsedDesign {
  let blocks = extractCodeBlocks(completion);
  if (blocks.length === 0 && isScaffoldSource(completion)) blocks = [{ language: "python", body: `${completion.trim()}\n` }];
  if (blocks.length === 0) {
    return failure("unparseable", "the completion holds no fenced code block (```python ... ```)", { excerpt: completion.slice(0, 300) });
  }
  // a module-level class (as the static gate and isScaffoldSource look for it): a class nested in a scaffold function is the scaffold's business
  const environmentBlock = blocks.find((block) => /^class\s+\w+/m.test(block.body) && /def\s+reset\s*\(/.test(block.body) && /def\s+step\s*\(/.test(block.body));
  const json = blocks.map((block) => tryJsonObject(block.body)).find((value) => value !== undefined);
  if (environmentBlock === undefined) {
    const scaffold = blocks.find((block) => isScaffoldSource(block.body));
    if (scaffold !== undefined) {
      const fields = json ?? manifestFromConstants(scaffold.body);
      return packageOf(fields, expandScaffold(stripFileComment(scaffold.body)), provenance);
    }
    const partial = blocks.find((block) => missingScaffoldFunctions(block.body).length < SCAFFOLD_FUNCTIONS.length);
    if (partial !== undefined) {
      return failure("missing_environment", `the python block does not define ${missingScaffoldFunctions(partial.body).map((name) => `${name}()`).join(" and ")} at module level`);
    }
    return failure("missing_environment", "no code block defines a class with reset() and step(), or generate(), render() and solve()");
  }
  const oracleBlock =
    blocks.find((block) => block !== environmentBlock && /^def\s+act\s*\(/m.test(block.body)) ??
    (/^def\s+act\s*\(/m.test(environmentBlock.body) ? environmentBlock : undefined);
  if (oracleBlock === undefined) return failure("missing_oracle", "no code block defines act(env, observation)");
  if (json === undefined) return failure("invalid_manifest", "no JSON block with the environment's fields");
  return packageOf(json, { envSource: stripFileComment(environmentBlock.body), oracleSource: stripFileComment(oracleBlock.body) }, provenance);
}

/** The manifest fields of a scaffolded design's module constants (absent ones left out, so the schema names them). */
function manifestFromConstants(source: string): Record<string, unknown> {
  const constants = readModuleConstants(source);
  const fields: Record<string, unknown> = {};
  const keys = {
    name: "NAME",
    title: "TITLE",
    description: "DESCRIPTION",
    hint: "HINT",
    skills: "SKILLS",
    scenario: "SCENARIO",
    maxTurns: "MAX_TURNS",
    levels: "LEVELS",
    levelDescription: "LEVEL_DESCRIPTION",
  } as const;
  for (const [field, constant] of Object.entries(keys)) if (constants[constant] !== undefined) fields[field] = constants[constant];
  if (fields.title === undefined && typeof fields.name === "string") fields.title = fields.name;
  if (fields.description === undefined && typeof fields.title === "string") fields.description = fields.title;
  return fields;
}

function packageOf(json: Record<string, unknown>, sources: { readonly envSource: string; readonly oracleSource: string }, provenance: Provenance): ParsedDesign {
  const designed = DesignedManifest.safeParse(json);
  if (!designed.success) {
    return failure("invalid_manifest", `manifest fields invalid: ${designed.error.issues.map((issue) => `${issue.path.join(".") || "fields"}: ${issue.message}`).join("; ")}`);
  }
  const fields = designed.data;
  const manifest = EnvManifestSchema.safeParse({
    schemaVersion: 1,
    name: toKebabCase(fields.name ?? fields.title),
    title: fields.title,
    description: fields.description,
    interaction: fields.maxTurns > 1 ? "multi-turn" : "single-turn",
    maxTurns: fields.maxTurns,
    rewardRange: fields.rewardRange,
    passThreshold: fields.passThreshold,
    hint: fields.hint,
    skills: fields.skills.length > 0 ? fields.skills.slice(0, 8) : ["general"],
    scenario: fields.scenario,
    difficulty: fields.difficulty,
    ...(designedLevels(fields.levels, fields.levelDescription) === undefined ? {} : { levels: designedLevels(fields.levels, fields.levelDescription) }),
    ...(fields.tools === undefined ? {} : { tools: fields.tools }),
    provenance,
  });
  if (!manifest.success) {
    return failure("invalid_manifest", `manifest invalid: ${manifest.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`);
  }
  return { ok: true, package: { manifest: manifest.data, ...sources } };
}

/**
 * Every fenced block (a line starting with ```lang, up to a line starting with ```)
 * of a text; an unterminated last block runs to the end. Scans line by line, in
 * time linear in the text (completions are untrusted and may be huge).
 */
export function extractCodeBlocks(text: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let current: { language: string; lines: string[] } | null = null;
  const close = (block: { language: string; lines: string[] }) => {
    const body = block.lines.join("\n").replace(/\s+$/, "");
    if (body.trim().length > 0) blocks.push({ language: block.language.toLowerCase(), body: `${body}\n` });
  };
  for (const line of text.split(/\r?\n/)) {
    const fence = /^\s*```/.test(line);
    if (current === null) {
      if (fence) current = { language: /^\s*```([\w.+-]*)/.exec(line)?.[1] ?? "", lines: [] };
    } else if (fence) {
      close(current);
      current = null;
    } else {
      current.lines.push(line);
    }
  }
  if (current !== null) close(current);
  return blocks;
}

/** A kebab-case name (1-64 characters) from free text; `design` when nothing is left. */
export function toKebabCase(text: string): string {
  const slug = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/, "");
  return slug.length > 0 ? slug : "design";
}

function tryJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function stripFileComment(source: string): string {
  return source.replace(/^#\s*(env|oracle)\.py\s*\n/, "");
}

function failure(reason: VerdictReason<"parse">, message: string, evidence?: Record<string, unknown>): ParsedDesign {
  return { ok: false, verdict: reject("parse", reason, message, evidence) };
}
