import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CorpusError } from "../../spec/index.js";

/** The self-review rubric shipped with envforge (`rubrics/self-review.md`). */
export const DEFAULT_RUBRIC_PATH = fileURLToPath(new URL("../../../rubrics/self-review.md", import.meta.url));

/**
 * Reads the self-review rubric (Markdown text).
 * @param path a user's rubric file; null = {@link DEFAULT_RUBRIC_PATH}
 * @throws CorpusError when the file cannot be read or is empty
 */
export function readRubric(path: string | null): string {
  const file = path ?? DEFAULT_RUBRIC_PATH;
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new CorpusError(`cannot read rubric ${file}: ${(error as Error).message}`, { cause: error });
  }
  if (text.trim() === "") throw new CorpusError(`rubric ${file} is empty`);
  return text;
}
