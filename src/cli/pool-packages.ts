import { existsSync, statSync } from "node:fs";
import { loadPackagesAt, PACKAGE_FILES } from "../adapters/package-files/index.js";
import type { Config } from "../config/index.js";
import { toolSchemaProblem } from "../core/rollout/index.js";
import { ConfigError, type EnvPackage } from "../spec/index.js";

/**
 * The packages of `pool.packages`: each folder is one package folder (it holds `env.json`) or a
 * folder of them, read in name order; a tool environment's tools must compile as JSON Schema.
 * @throws ConfigError naming the folder when it is missing, holds no package, a package does not read (the file and
 *   field), or a tool's parameters is not JSON Schema
 */
export function poolPackages(config: Pick<Config, "pool">): EnvPackage[] {
  return config.pool.packages.flatMap((folder) => {
    if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new ConfigError(`pool.packages: ${folder} is not a folder`);
    let packages: EnvPackage[];
    try {
      packages = loadPackagesAt(folder);
    } catch (error) {
      throw new ConfigError(`pool.packages: ${folder}: ${(error as Error).message}`, { cause: error });
    }
    if (packages.length === 0) throw new ConfigError(`pool.packages: ${folder} holds no envforge package (a folder with ${PACKAGE_FILES.manifest}, or a folder of them)`);
    for (const pkg of packages) {
      const problem = toolSchemaProblem(pkg.manifest.tools);
      if (problem !== null) throw new ConfigError(`pool.packages: ${folder}: ${pkg.manifest.name}: ${problem}`);
    }
    return packages;
  });
}
