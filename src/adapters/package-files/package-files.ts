import { existsSync, lstatSync, readdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { makeDirectory } from "../../support/make-directory.js";
import {
  EnvManifestSchema,
  EnvPackageDocumentSchema,
  PackageFormatError,
  type EnvPackage,
  type EnvPackageDocument,
} from "../../spec/index.js";

/** File names of a package folder. */
export const PACKAGE_FILES = { manifest: "env.json", env: "env.py", oracle: "oracle.py" } as const;

/**
 * Reads a package folder (`env.json`, `env.py`, `oracle.py`).
 *
 * @throws PackageFormatError naming the file and the field when anything is missing or invalid
 */
export function loadPackageFolder(folder: string): EnvPackage {
  const manifestText = readText(join(folder, PACKAGE_FILES.manifest));
  let raw: unknown;
  try {
    raw = JSON.parse(manifestText);
  } catch (error) {
    throw new PackageFormatError(`${join(folder, PACKAGE_FILES.manifest)} is not valid JSON: ${(error as Error).message}`);
  }
  const manifest = EnvManifestSchema.safeParse(raw);
  if (!manifest.success) {
    throw new PackageFormatError(`${join(folder, PACKAGE_FILES.manifest)}: ${formatIssues(manifest.error)}`);
  }
  return {
    manifest: manifest.data,
    envSource: readText(join(folder, PACKAGE_FILES.env)),
    oracleSource: readText(join(folder, PACKAGE_FILES.oracle)),
  };
}

/** Writes a package folder, creating it; each file is written atomically (temp file + rename). */
export function savePackageFolder(pkg: EnvPackage, folder: string): void {
  makeDirectory(folder);
  writeAtomic(join(folder, PACKAGE_FILES.manifest), `${JSON.stringify(pkg.manifest, null, 2)}\n`);
  writeAtomic(join(folder, PACKAGE_FILES.env), pkg.envSource);
  writeAtomic(join(folder, PACKAGE_FILES.oracle), pkg.oracleSource);
}

/** Converts a package to its single-JSON-document form. */
export function toPackageDocument(pkg: EnvPackage): EnvPackageDocument {
  return { manifest: pkg.manifest, files: { "env.py": pkg.envSource, "oracle.py": pkg.oracleSource } };
}

/**
 * Parses the single-JSON-document form (`{ manifest, files: { "env.py", "oracle.py" } }`).
 *
 * @throws PackageFormatError when the document does not match the schema
 */
export function fromPackageDocument(document: unknown): EnvPackage {
  const parsed = EnvPackageDocumentSchema.safeParse(document);
  if (!parsed.success) throw new PackageFormatError(`package document: ${formatIssues(parsed.error)}`);
  return {
    manifest: parsed.data.manifest,
    envSource: parsed.data.files["env.py"],
    oracleSource: parsed.data.files["oracle.py"],
  };
}

/**
 * Loads every package folder directly under `root`, sorted by folder name. Hidden folders
 * (`.git`, `.venv`, …) and folders holding none of the package files are not packages and are
 * skipped; a folder with some but not all of them is a broken package.
 * @throws PackageFormatError for a broken package folder
 */
export function loadPackageFolders(root: string): EnvPackage[] {
  const names = readdirSync(root, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && !entry.name.startsWith("."))
    .map((entry) => entry.name)
    .filter((name) => Object.values(PACKAGE_FILES).some((file) => existsSync(join(root, name, file))))
    .sort();
  return names.map((name) => loadPackageFolder(join(root, name)));
}

/**
 * The packages at `path`: the folder itself when it is a package folder (it holds `env.json`), else each
 * package folder in it ({@link loadPackageFolders}).
 * @throws PackageFormatError naming the file and the field when a package is malformed
 */
export function loadPackagesAt(path: string): EnvPackage[] {
  return existsSync(join(path, PACKAGE_FILES.manifest)) ? [loadPackageFolder(path)] : loadPackageFolders(path);
}

/** One line per zod issue: `path: message`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`).join("; ");
}

function readText(path: string): string {
  try {
    // a FIFO or device would block the process forever on a synchronous read; a link would read a file from
    // anywhere on the host into the package (and from there into prompts), as the Harbor and OpenEnv readers refuse
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) throw new Error("it is a symbolic link; a package's files must be regular files in its folder");
    if (!stat.isFile()) throw new Error("not a regular file");
    if (stat.nlink > 1) throw new Error("it is a hard link (it has other names); a package's files must be its own");
    return readFileSync(path, "utf8");
  } catch (error) {
    throw new PackageFormatError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

function writeAtomic(path: string, text: string): void {
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}
