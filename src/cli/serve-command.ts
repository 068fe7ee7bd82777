import { openSandbox } from "../adapters/sandbox/index.js";
import { terminalSandboxOf } from "./terminal-runtime.js";
import { configSource, mergeConfigInput, parseConfig, readConfigFile, type Config } from "../config/index.js";
import {
  folderCatalog,
  readTokens,
  runStoreCatalog,
  seedCatalog,
  serveSandboxSettings,
  startEnvironmentServer,
  type EnvironmentCatalog,
  type EnvironmentServer,
} from "../server/index.js";
import { ConfigError } from "../spec/index.js";

/** Flags of `envforge serve`. */
export interface ServeFlags {
  /** Run or evolution directory whose store's environments are served. */
  readonly store?: string;
  /** Package folders, or folders of them. */
  readonly envs?: readonly string[];
  readonly host?: string;
  readonly port?: number;
  readonly capacity?: number;
  readonly tokenEnv?: string;
  readonly idleTimeout?: number;
  readonly config?: string;
}

/**
 * The configuration of `envforge serve`: the config file (if any), then the flags.
 * @throws ConfigError naming the offending key
 */
export function serveConfig(flags: ServeFlags): Config {
  const fromFile = flags.config === undefined ? {} : readConfigFile(flags.config);
  const serve: Record<string, unknown> = {};
  if (flags.host !== undefined) serve.host = flags.host;
  if (flags.port !== undefined) serve.port = flags.port;
  if (flags.capacity !== undefined) serve.capacity = flags.capacity;
  if (flags.tokenEnv !== undefined) serve.tokenEnv = flags.tokenEnv;
  if (flags.idleTimeout !== undefined) serve.idleTimeoutMs = flags.idleTimeout * 1000;
  return parseConfig(mergeConfigInput(fromFile, { serve }), configSource(flags.config));
}

/**
 * The environments to serve: a store (`--store`), package folders (`--envs`), or the seeds.
 * @throws ConfigError when both sources are given, or a source holds nothing
 */
export function serveCatalog(flags: ServeFlags): EnvironmentCatalog {
  if (flags.store !== undefined && flags.envs !== undefined) throw new ConfigError("give either --store or --envs, not both");
  if (flags.store !== undefined) return runStoreCatalog(flags.store);
  if (flags.envs !== undefined) return folderCatalog(flags.envs);
  return seedCatalog();
}

/**
 * `envforge serve`: serves environments over OpenEnv's wire protocol and envforge's `/v1`
 * routes until SIGTERM or SIGINT, then drains (running episodes get `serve.drainTimeoutMs`) and
 * exits 0. Exit 2 (thrown ConfigError) for bad flags, a non-loopback host without a token, or an
 * address in use.
 */
export async function serveCommand(flags: ServeFlags): Promise<number> {
  const config = serveConfig(flags);
  const catalog = serveCatalog(flags);
  const tokens = readTokens(process.env, config.serve.tokenEnv);
  const programs = openSandbox(serveSandboxSettings(config), (message) => process.stderr.write(`envforge: ${message}\n`));
  // a session of a terminal task owns its root (docs/terminal-environments.md)
  const sandbox = terminalSandboxOf(programs, config);
  let server: EnvironmentServer;
  try {
    server = await startEnvironmentServer({ catalog, sandbox, settings: config.serve, tokens });
  } catch (error) {
    await sandbox.close();
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`cannot serve on ${config.serve.host}:${config.serve.port}: ${(error as Error).message}`, { cause: error });
  }
  const wsUrl = server.url.replace(/^http/, "ws");
  process.stdout.write(
    `envforge serve: ${catalog.size} environment(s) on ${server.url} (OpenEnv WebSocket ${wsUrl}/ws; envforge routes ${server.url}/v1/envs); ` +
      `capacity ${config.serve.capacity} sessions; ${tokens.length > 0 ? `bearer token required (${config.serve.tokenEnv})` : "no token (loopback only)"}; SIGTERM or Ctrl-C drains\n`,
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  process.stdout.write(`envforge serve: ${signal}: draining ${server.stats().sessions} session(s) (at most ${config.serve.drainTimeoutMs / 1000} s)\n`);
  await server.drain();
  await sandbox.close();
  process.stdout.write("envforge serve: stopped\n");
  return 0;
}
