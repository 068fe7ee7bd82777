import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { CorpusError, type CorpusDocument } from "../../spec/index.js";

/** The sample corpus shipped with envforge (48 short documents). */
export const SAMPLE_CORPUS_PATH = fileURLToPath(new URL("../../../corpus/sample.jsonl", import.meta.url));

const JsonlDocument = z.object({ id: z.string().min(1), text: z.string().min(1), title: z.string().optional() }).passthrough();

/**
 * Reads a JSONL corpus: one `{"id": string, "text": string}` object per line
 * (extra keys such as `title` are kept or ignored). Blank lines are skipped.
 *
 * @throws CorpusError naming the file and line of the first malformed or duplicate document
 */
export function readJsonlCorpus(path: string): CorpusDocument[] {
  const text = readOrThrow(path);
  const documents: CorpusDocument[] = [];
  const seen = new Set<string>();
  text.split("\n").forEach((line, index) => {
    if (line.trim() === "") return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      throw new CorpusError(`${path}:${index + 1} is not JSON: ${(error as Error).message}`);
    }
    const parsed = JsonlDocument.safeParse(raw);
    if (!parsed.success) throw new CorpusError(`${path}:${index + 1} needs string fields "id" and "text"`);
    if (seen.has(parsed.data.id)) throw new CorpusError(`${path}:${index + 1} repeats id "${parsed.data.id}"`);
    seen.add(parsed.data.id);
    const { id, text: body, title } = parsed.data;
    documents.push(title === undefined ? { id, text: body } : { id, text: body, title });
  });
  return documents;
}

/**
 * Reads every `.txt` and `.md` file directly in `folder` as one document; the id
 * is the file name without extension. Files are read in name order.
 *
 * @throws CorpusError when the folder cannot be read
 */
export function readFolderCorpus(folder: string): CorpusDocument[] {
  let names: string[];
  try {
    names = readdirSync(folder).sort();
  } catch (error) {
    throw new CorpusError(`cannot read corpus folder ${folder}: ${(error as Error).message}`, { cause: error });
  }
  return names
    .filter((name) => [".txt", ".md"].includes(extname(name).toLowerCase()))
    .map((name) => ({ id: basename(name, extname(name)), text: readOrThrow(join(folder, name)).trim() }))
    .filter((document) => document.text.length > 0);
}

/**
 * Reads a corpus from a `.jsonl` file or a folder; `null` reads the shipped sample.
 * @throws CorpusError when the path is missing, of an unknown kind, or holds no documents
 */
export function readCorpus(path: string | null): CorpusDocument[] {
  const target = path ?? SAMPLE_CORPUS_PATH;
  let isFolder: boolean;
  try {
    isFolder = statSync(target).isDirectory();
  } catch (error) {
    throw new CorpusError(`corpus ${target} not found`, { cause: error });
  }
  let documents: CorpusDocument[];
  if (isFolder) documents = readFolderCorpus(target);
  else if (target.endsWith(".jsonl")) documents = readJsonlCorpus(target);
  else throw new CorpusError(`corpus ${target} must be a .jsonl file or a folder of .txt/.md files`);
  if (documents.length === 0) throw new CorpusError(`corpus ${target} holds no documents`);
  return documents;
}

function readOrThrow(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new CorpusError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}
