import { fileURLToPath } from "node:url";
import type { EnvPackage } from "../../spec/index.js";
import { loadPackageFolders } from "./package-files.js";

/** Folder of the seed environments shipped with envforge (`envs/seeds`). */
export const SEED_FOLDER = fileURLToPath(new URL("../../../envs/seeds", import.meta.url));

/** Loads the ten shipped seed environments. */
export function loadSeedPackages(): EnvPackage[] {
  return loadPackageFolders(SEED_FOLDER);
}
