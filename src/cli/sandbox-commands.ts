import { loadSeedPackages } from "../adapters/package-files/index.js";
import { benchmarkSandbox, diagnoseSandbox, formatDiagnosis, formatSandboxBench } from "../adapters/sandbox/index.js";

/**
 * `envforge sandbox doctor`: prints which protections are active here and how
 * to enable the missing ones. Exit code 0 when the namespaces and seccomp are
 * active, 1 otherwise.
 */
export async function sandboxDoctorCommand(flags: { backend?: "bwrap" | "process"; json?: boolean }): Promise<number> {
  const statuses = await diagnoseSandbox(flags.backend ?? "bwrap");
  process.stdout.write(flags.json ? `${JSON.stringify(statuses, null, 2)}\n` : `${formatDiagnosis(statuses)}\n`);
  const essential = statuses.filter((status) => status.name.startsWith("namespaces") || status.name === "seccomp filter");
  return essential.every((status) => status.active) ? 0 : 1;
}

/** `envforge bench sandbox [--json]`: the sandbox benchmark on the shipped seed environments. */
export async function benchSandboxCommand(flags: { json?: boolean; seconds?: number }): Promise<number> {
  const environments = loadSeedPackages().map((pkg) => ({
    name: pkg.manifest.name,
    program: { envSource: pkg.envSource, oracleSource: pkg.oracleSource },
  }));
  const result = await benchmarkSandbox(environments, flags.seconds === undefined ? {} : { throughputSeconds: flags.seconds });
  process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatSandboxBench(result)}\n`);
  return 0;
}
