import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, PackageFormatError, type EnvPackage, type RejectVerdict } from "../spec/index.js";
import { packageInvalid } from "../core/admission/index.js";
import { fromPackageDocument, loadPackageFolder, PACKAGE_FILES } from "../adapters/package-files/index.js";
import { isOpenEnvPackageFolder, openEnvPackage, readOpenEnvPackage } from "../adapters/openenv/index.js";

/** A candidate read from disk: the package, or the static gate's `package_invalid` verdict when its manifest or document is malformed. */
export type LoadedCandidate = { readonly package: EnvPackage } | { readonly invalid: RejectVerdict };

/**
 * Reads a candidate package from a folder (`env.json`, `env.py`, `oracle.py`), an OpenEnv
 * package folder (`openenv.yaml`; its reader's static verdict when it does not read) or a single
 * JSON document. A malformed manifest or document is a verdict
 * (the static gate's `package_invalid`), not an error.
 * @throws ConfigError when the path or one of the folder's files does not exist (an I/O problem, exit 2)
 */
export function loadCandidate(path: string): LoadedCandidate {
  if (!existsSync(path)) throw new ConfigError(`${path} does not exist`);
  if (isOpenEnvPackageFolder(path)) {
    // an OpenEnv package: its reader's verdict is the static gate's
    const task = readOpenEnvPackage(path);
    return "status" in task ? { invalid: task } : { package: openEnvPackage(task) };
  }
  try {
    if (statSync(path).isDirectory()) {
      for (const file of Object.values(PACKAGE_FILES)) {
        if (!existsSync(join(path, file))) throw new ConfigError(`${path} is not a package folder: ${file} is missing (an envforge package has env.json, env.py and oracle.py; an OpenEnv package openenv.yaml; a Harbor task task.toml)`);
      }
      return { package: loadPackageFolder(path) };
    }
    let document: unknown;
    try {
      document = JSON.parse(readFileSync(path, "utf8"));
    } catch (error) {
      return { invalid: packageInvalid(`${path} is not valid JSON: ${(error as Error).message}`) };
    }
    return { package: fromPackageDocument(document) };
  } catch (error) {
    if (error instanceof PackageFormatError) return { invalid: packageInvalid(error.message) };
    throw error;
  }
}
