import { existsSync, statSync } from "node:fs";
import { join } from "node:path";
import { loadPackageFolder, loadPackageFolders, PACKAGE_FILES } from "../adapters/package-files/index.js";
import { ConfigError, type EnvPackage } from "../spec/index.js";
import type { Config } from "../config/index.js";

/**
 * The packages of `pool.packages`: each folder is one package folder (it holds `env.json`) or a
 * folder of them, read in name order.
 * @throws ConfigError naming the folder when it is missing, holds no package, or a package does not read (the file and field)
 */
export function poolPackages(config: Pick<Config, "pool">): EnvPackage[] {
  return config.pool.packages.flatMap((folder) => {
    if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new ConfigError(`pool.packages: ${folder} is not a folder`);
    try {
      const packages = existsSync(join(folder, PACKAGE_FILES.manifest)) ? [loadPackageFolder(folder)] : loadPackageFolders(folder);
      if (packages.length === 0) throw new ConfigError(`pool.packages: ${folder} holds no envforge package (a folder with ${PACKAGE_FILES.manifest}, or a folder of them)`);
      return packages;
    } catch (error) {
      if (error instanceof ConfigError) throw error;
      throw new ConfigError(`pool.packages: ${folder}: ${(error as Error).message}`, { cause: error });
    }
  });
}
