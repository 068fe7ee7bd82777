import { applyPatch, createTwoFilesPatch, parsePatch } from "diff";
import { z } from "zod";
import { EnvManifestSchema, packageId, reject, type EnvManifest, type EnvPackage, type Provenance, type RejectVerdict, type VerdictReason } from "../../spec/index.js";
import { extractCodeBlocks, toKebabCase } from "../selfplay/index.js";
import { findJson } from "./completion-json.js";
import { applySearchReplace, parseSearchReplace } from "./search-replace.js";

/** A child built from a Modifier reply, with the form the reply used. */
export type ChildResult =
  | { readonly ok: true; readonly package: EnvPackage; readonly form: "patch" | "files" | "replace" }
  | { readonly ok: false; readonly verdict: RejectVerdict };

/** Manifest fields a Modifier may change; the rest comes from the parent. */
const ManifestChanges = z
  .object({
    title: z.string().min(1).optional(),
    description: z.string().min(1).optional(),
    maxTurns: z.coerce.number().int().min(1).max(200).optional(),
    hint: z.string().min(1).optional(),
    skills: z.union([z.array(z.string()), z.string().transform((skill) => [skill])]).optional(),
    scenario: z.string().min(1).optional(),
    rewardRange: z.tuple([z.number(), z.number()]).optional(),
    passThreshold: z.number().optional(),
    difficulty: z.record(z.string(), z.union([z.number(), z.string(), z.boolean()])).optional(),
  })
  .passthrough();

/** The kebab-case name of generation `generation` of a lineage whose seed is named `name` (`name-g3`). */
export function generationName(name: string, generation: number): string {
  const base = name.replace(/-g\d+$/, "");
  const suffix = `-g${generation}`;
  return `${toKebabCase(base).slice(0, 64 - suffix.length).replace(/-+$/, "")}${suffix}`;
}

/**
 * Builds the child environment from a Modifier reply (untrusted). Three forms:
 *
 * - **replace**: search/replace blocks ({@link parseSearchReplace}) against the
 *   parent's files, each applied in order; one whose search lines are not in the
 *   file exactly once rejects with `patch_failed` (the message says what to send);
 * - **patch**: one or more unified diffs (fenced ```diff blocks, or the bare
 *   text) against the parent's `env.py` / `oracle.py` (`--- a/env.py`,
 *   `+++ b/env.py`), applied with jsdiff; a hunk that does not apply rejects
 *   with `patch_failed`.
 * - **files**: fenced Python blocks with the full `env.py` (a class with
 *   `reset` and `step`) and/or `oracle.py` (`def act`); a file left out keeps
 *   the parent's.
 *
 * Either form may carry a JSON object with manifest changes (title,
 * description, hint, skills, scenario, maxTurns, rewardRange, passThreshold,
 * difficulty), read from the reply outside its blocks and its non-JSON fenced
 * code (a dict in Python code is never taken for it). A block naming another
 * file, a reply that ends inside a block and a block whose SEARCH an earlier
 * block already changed reject with `patch_failed`. The child is named `<seed name>-g<generation>` and stamped with
 * `provenance`. Never throws: failures are `modify` reject verdicts with reason
 * `no_change_found`, `patch_failed`, `invalid_manifest` or `child_unchanged`.
 */
export function buildChild(parent: EnvPackage, completion: string, provenance: Provenance): ChildResult {
  const blocks = extractCodeBlocks(completion);
  const diffText = diffSource(completion, blocks);
  let envSource = parent.envSource;
  let oracleSource = parent.oracleSource;
  let form: "patch" | "files" | "replace";
  const reply = parseSearchReplace(completion);
  if (reply.edits.length > 0 || reply.problems.length > 0) {
    form = "replace";
    if (reply.problems.length > 0) return failure("patch_failed", reply.problems[0] as string);
    for (const edit of reply.edits) {
      const applied = applySearchReplace(edit.file === "env.py" ? envSource : oracleSource, edit);
      if (!applied.ok) {
        // lines an earlier block of this reply changed are no longer there in their old form
        const inParent = applySearchReplace(edit.file === "env.py" ? parent.envSource : parent.oracleSource, edit).ok;
        const message = inParent
          ? `the SEARCH lines starting "${edit.search.trim().split("\n")[0]?.trim().slice(0, 80)}" were changed by an earlier block of this reply; put both changes in one block`
          : applied.message;
        return failure("patch_failed", message);
      }
      if (edit.file === "env.py") envSource = applied.source;
      else oracleSource = applied.source;
    }
  } else if (diffText !== null) {
    form = "patch";
    let patches;
    try {
      patches = parsePatch(diffText);
    } catch (error) {
      return failure("patch_failed", `the patch could not be parsed: ${(error as Error).message}`);
    }
    let applied = 0;
    for (const patch of patches) {
      const file = fileOf(patch.newFileName ?? patch.oldFileName ?? "");
      if (file === null || patch.hunks.length === 0) continue;
      const result = applyPatch(file === "env.py" ? envSource : oracleSource, patch, { fuzzFactor: 1 });
      if (result === false) return failure("patch_failed", `the patch for ${file} does not apply to the parent's ${file}; send full files instead`);
      if (file === "env.py") envSource = result;
      else oracleSource = result;
      applied += 1;
    }
    if (applied === 0) return failure("patch_failed", "the patch names neither env.py nor oracle.py (use --- a/env.py / +++ b/env.py headers)");
  } else {
    form = "files";
    const environment = blocks.find((block) => /^\s*class\s+\w+/m.test(block.body) && /def\s+reset\s*\(/.test(block.body) && /def\s+step\s*\(/.test(block.body));
    const oracle = blocks.find((block) => block !== environment && /^def\s+act\s*\(/m.test(block.body));
    if (environment === undefined && oracle === undefined) {
      return failure("no_change_found", "the reply holds no search/replace block ('<<<<<<< SEARCH env.py' … '=======' … '>>>>>>> REPLACE'), unified diff or full env.py (class with reset and step) or oracle.py (def act): a manifest alone changes nothing");
    }
    if (environment !== undefined) envSource = stripFileComment(environment.body);
    if (oracle !== undefined) oracleSource = stripFileComment(oracle.body);
  }
  // manifest changes come from the text outside the code: a dict literal in Python code is not a manifest
  const manifest = childManifest(parent.manifest, withoutCode(form === "replace" ? reply.rest : completion), provenance);
  if ("verdict" in manifest) return { ok: false, verdict: manifest.verdict };
  const child: EnvPackage = { manifest: manifest.manifest, envSource, oracleSource };
  if (child.envSource === parent.envSource && child.oracleSource === parent.oracleSource) {
    return failure("child_unchanged", "the child's env.py and oracle.py equal the parent's; the plan needs a code change");
  }
  if (packageId(child) === packageId(parent)) return failure("child_unchanged", "the child equals its parent");
  return { ok: true, package: child, form };
}

/**
 * Unified diff from the parent's files to the child's: `env.json` (manifest
 * without provenance), `env.py`, `oracle.py`; empty when nothing changed.
 */
export function packagePatch(parent: EnvPackage, child: EnvPackage): string {
  const task = (manifest: EnvManifest) => {
    const { provenance: _provenance, ...rest } = manifest;
    return `${JSON.stringify(rest, null, 2)}\n`;
  };
  const files: [string, string, string][] = [
    ["env.json", task(parent.manifest), task(child.manifest)],
    ["env.py", parent.envSource, child.envSource],
    ["oracle.py", parent.oracleSource, child.oracleSource],
  ];
  return filesPatch(files);
}

/**
 * Unified diff over named files, `[name, before, after]` each ("" for a file that one side lacks);
 * files that did not change are left out, so equal sides give "".
 */
export function filesPatch(files: readonly (readonly [string, string, string])[]): string {
  return files
    .filter(([, before, after]) => before !== after)
    .map(([name, before, after]) => createTwoFilesPatch(`a/${name}`, `b/${name}`, before, after, undefined, undefined, { context: 3 }))
    .join("");
}

function childManifest(parent: EnvManifest, completion: string, provenance: Provenance): { manifest: EnvManifest } | { verdict: RejectVerdict } {
  const raw = findJson(completion, "object");
  const changes = raw === undefined ? { success: true as const, data: {} as z.infer<typeof ManifestChanges> } : ManifestChanges.safeParse(raw);
  if (!changes.success) {
    return { verdict: reject("modify", "invalid_manifest", `manifest changes invalid: ${changes.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`) };
  }
  const fields = changes.data;
  const maxTurns = fields.maxTurns ?? parent.maxTurns;
  const manifest = EnvManifestSchema.safeParse({
    ...parent,
    name: generationName(parent.name, provenance.generation),
    ...(fields.title === undefined ? {} : { title: fields.title }),
    ...(fields.description === undefined ? {} : { description: fields.description }),
    ...(fields.hint === undefined ? {} : { hint: fields.hint }),
    ...(fields.scenario === undefined ? {} : { scenario: fields.scenario }),
    ...(fields.skills === undefined || fields.skills.length === 0 ? {} : { skills: fields.skills.slice(0, 8) }),
    ...(fields.rewardRange === undefined ? {} : { rewardRange: fields.rewardRange }),
    ...(fields.passThreshold === undefined ? {} : { passThreshold: fields.passThreshold }),
    ...(fields.difficulty === undefined ? {} : { difficulty: fields.difficulty }),
    maxTurns,
    interaction: maxTurns > 1 ? "multi-turn" : parent.interaction,
    provenance,
  });
  if (!manifest.success) {
    return { verdict: reject("modify", "invalid_manifest", `child manifest invalid: ${manifest.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`).join("; ")}`) };
  }
  return { manifest: manifest.data };
}

/** The text without its fenced blocks other than ```json ones (where Python or diff text would be). */
function withoutCode(text: string): string {
  return text.replace(/^```([\w.+-]*)[^\n]*\n[\s\S]*?^```[ \t]*$/gm, (block, language: string) => (language.toLowerCase() === "json" ? block : ""));
}

function diffSource(completion: string, blocks: readonly { language: string; body: string }[]): string | null {
  const fenced = blocks.filter((block) => block.language === "diff" || block.language === "patch" || /^---\s+\S.*\n\+\+\+\s+\S/m.test(block.body));
  if (fenced.length > 0) return fenced.map((block) => block.body).join("\n");
  return /^---\s+\S.*\n\+\+\+\s+\S.*\n@@/m.test(completion) ? completion : null;
}

function fileOf(name: string): "env.py" | "oracle.py" | null {
  const base = name.replace(/^[ab]\//, "").trim().split("/").pop() ?? "";
  return base === "env.py" || base === "oracle.py" ? base : null;
}

function stripFileComment(source: string): string {
  return source.replace(/^#\s*(env|oracle)\.py\s*\n/, "");
}

function failure(reason: VerdictReason<"modify">, message: string): ChildResult {
  return { ok: false, verdict: reject("modify", reason, message) };
}
