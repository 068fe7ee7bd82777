import { existsSync, readFileSync, statSync } from "node:fs";

/** Largest text file read from a task or package folder (instruction, tests, solution, openenv.yaml, Python), bytes. */
export const MAX_TEXT_BYTES = 256 * 1024;

/** Thrown by {@link readBoundedText} for a file over {@link MAX_TEXT_BYTES}; readers turn it into a `too_large` verdict. */
export class TextTooLargeError extends Error {}

/**
 * The text of `path`, or null when it is not a file.
 * @throws TextTooLargeError when it is over {@link MAX_TEXT_BYTES}
 */
export function readBoundedText(path: string): string | null {
  if (!existsSync(path) || !statSync(path).isFile()) return null;
  if (statSync(path).size > MAX_TEXT_BYTES) throw new TextTooLargeError(`${path} is over ${MAX_TEXT_BYTES} bytes`);
  return readFileSync(path, "utf8");
}
