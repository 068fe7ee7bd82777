import { loadavg } from "node:os";
import { benchmarkServe, benchmarkServeClients, formatServeBench, formatServeClientBench } from "../server/serve-bench.js";
import { ConfigError } from "../spec/index.js";

/** Flags of `envforge bench serve`. */
export interface BenchServeFlags {
  readonly json?: boolean;
  readonly seconds?: number;
  readonly env?: string;
  /** false with `--no-openenv`. */
  readonly openenv?: boolean;
  /** Comma-separated session counts. */
  readonly sessions?: string;
  /** Mean pause before each step, milliseconds. */
  readonly thinkMs?: number;
  /** Drive both servers with OpenEnv's Python clients (0.3.0 and 0.10.0) instead of the load generator. */
  readonly clients?: boolean;
}

/** `envforge bench serve [--json]`: envforge's server against openenv-core's on the same seed environment. */
export async function benchServeCommand(flags: BenchServeFlags): Promise<number> {
  const levels = flags.sessions?.split(",").map((value) => Number(value.trim()));
  if (levels?.some((level) => !Number.isSafeInteger(level) || level < 1)) throw new ConfigError("--sessions must be comma-separated integers ≥ 1, e.g. 64,256,1024");
  if (flags.clients === true) {
    if ((levels?.length ?? 1) !== 1) throw new ConfigError("--clients takes one session count, e.g. --sessions 64");
    const loadAverage = loadavg()[0] ?? 0;
    const rows = await benchmarkServeClients({
      ...(levels === undefined ? {} : { sessions: levels[0] }),
      ...(flags.seconds === undefined ? {} : { seconds: flags.seconds }),
      log: flags.json ? () => undefined : (line) => process.stderr.write(`${line}\n`),
    });
    process.stdout.write(flags.json ? `${JSON.stringify({ loadAverage, rows }, null, 2)}\n` : `${formatServeClientBench(rows, loadAverage)}\n`);
    return 0;
  }
  const result = await benchmarkServe({
    ...(flags.env === undefined ? {} : { environment: flags.env }),
    ...(flags.seconds === undefined ? {} : { seconds: flags.seconds }),
    ...(levels === undefined ? {} : { levels }),
    ...(flags.thinkMs === undefined ? {} : { thinkMs: flags.thinkMs }),
    openenv: flags.openenv !== false,
    log: flags.json ? () => undefined : (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatServeBench(result)}\n`);
  return 0;
}
