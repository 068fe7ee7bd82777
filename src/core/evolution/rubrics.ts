import { existsSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { ConfigError, type EvolutionDirection } from "../../spec/index.js";

/** The rubric file shipped with envforge (`rubrics/evolution.md`), used when `evolution.rubrics` is null. */
export const DEFAULT_RUBRICS_PATH = fileURLToPath(new URL("../../../rubrics/evolution.md", import.meta.url));

/** Which object a rubric judges: an edit plan or an evolved child environment. */
export type RubricStage = "plan" | "child";

/** Rubrics by stage, in file order. */
export interface Rubrics {
  readonly plan: readonly string[];
  readonly child: readonly string[];
}

const HEADINGS: Record<RubricStage, string> = { plan: "Plan", child: "Child" };

const DIRECTION_TAG = /^(LENGTH|SCENARIO|SKILL)\s*:\s*/;

/**
 * The rubrics that judge a plan or child of `direction`: a rubric tagged with
 * a direction (`LENGTH: …`, `SCENARIO: …`, `SKILL: …`) applies only to that
 * direction, and is given without its tag; untagged rubrics apply to all.
 * (Qwen2.5-Coder-1.5B, shown one rubric naming all three directions, rejected
 * LENGTH plans for "not following the SCENARIO rule".)
 */
export function rubricsFor(rubrics: readonly string[], direction: EvolutionDirection): string[] {
  return rubrics.flatMap((rubric) => {
    const tag = DIRECTION_TAG.exec(rubric);
    if (tag === null) return [rubric];
    return tag[1]?.toLowerCase() === direction ? [rubric.slice(tag[0].length)] : [];
  });
}

/**
 * Parses a rubric file (Markdown): every `- ` (or `* `) bullet under a
 * `## Plan` or `## Child` heading is one rubric; indented lines continue the
 * bullet above; other headings end a section; HTML comments (`<!-- … -->`,
 * e.g. where a learned rubric came from) are dropped; everything else is ignored.
 */
export function parseRubrics(text: string): Rubrics {
  const rubrics: Record<RubricStage, string[]> = { plan: [], child: [] };
  let stage: RubricStage | null = null;
  let current: string[] | null = null;
  for (const line of text.split(/\r?\n/)) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line);
    if (heading) {
      const name = (heading[1] ?? "").trim().toLowerCase();
      stage = name === "plan" ? "plan" : name === "child" ? "child" : null;
      current = null;
      continue;
    }
    if (stage === null) continue;
    const bullet = /^[-*]\s+(.*)$/.exec(line);
    if (bullet) {
      current = rubrics[stage];
      current.push((bullet[1] ?? "").trim());
    } else if (/^\s+\S/.test(line) && current !== null && current.length > 0) {
      current[current.length - 1] = `${current[current.length - 1]} ${line.trim()}`;
    } else if (line.trim() === "") {
      continue;
    } else {
      current = null;
    }
  }
  const clean = (list: string[]) => list.map((rubric) => rubric.replace(/<!--[\s\S]*?-->/g, "").trim()).filter((rubric) => rubric.length > 0);
  return { plan: clean(rubrics.plan), child: clean(rubrics.child) };
}

/**
 * Reads and parses a rubric file.
 * @throws ConfigError when the file cannot be read
 */
export function readRubrics(path: string): Rubrics {
  try {
    return parseRubrics(readFileSync(path, "utf8"));
  } catch (error) {
    throw new ConfigError(`cannot read rubric file ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * Returns `text` with `rubric` added as the last bullet of the stage's
 * section (a new section at the end when there is none). Newlines in the
 * rubric become spaces; `note` (e.g. where it was learned) is kept in an HTML
 * comment after it.
 */
export function addRubric(text: string, stage: RubricStage, rubric: string, note?: string): string {
  const bullet = `- ${rubric.replace(/\s+/g, " ").trim()}${note === undefined ? "" : ` <!-- ${note.replace(/-->/g, "")} -->`}`;
  const lines = text.split("\n");
  const start = lines.findIndex((line) => new RegExp(`^#{1,6}\\s+${HEADINGS[stage]}\\s*$`, "i").test(line));
  if (start < 0) return `${text.replace(/\n*$/, "")}\n\n## ${HEADINGS[stage]}\n\n${bullet}\n`;
  let end = lines.length;
  for (let index = start + 1; index < lines.length; index += 1) {
    if (/^#{1,6}\s/.test(lines[index] ?? "")) {
      end = index;
      break;
    }
  }
  let insertAt = end;
  while (insertAt > start + 1 && (lines[insertAt - 1] ?? "").trim() === "") insertAt -= 1;
  lines.splice(insertAt, 0, bullet);
  return lines.join("\n");
}

/**
 * Appends a rubric to the file (created when missing), atomically.
 * @throws ConfigError when the file cannot be read or written
 */
export function appendRubric(path: string, stage: RubricStage, rubric: string, note?: string): void {
  try {
    const text = existsSync(path) ? readFileSync(path, "utf8") : "# Evolution rubrics\n";
    const temporary = `${path}.tmp-${process.pid}`;
    writeFileSync(temporary, addRubric(text, stage, rubric, note));
    renameSync(temporary, path);
  } catch (error) {
    throw new ConfigError(`cannot update rubric file ${path}: ${(error as Error).message}`, { cause: error });
  }
}
