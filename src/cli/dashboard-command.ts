import { existsSync } from "node:fs";
import { startDashboardServer, type DashboardServer } from "../dashboard/index.js";
import { readTokens } from "../server/access.js";
import { ConfigError } from "../spec/index.js";
import { RUNS_FOLDER } from "./run-folders.js";

/** Flags of `envforge dashboard`. */
export interface DashboardFlags {
  /** Run folders, evolution folders, or folders of them. @default ["runs"] */
  readonly out?: readonly string[];
  /** @default "127.0.0.1" */
  readonly host?: string;
  /** TCP port, 0 = any free one. @default 8700 */
  readonly port?: number;
  /** Environment variable holding the accepted bearer tokens. @default "ENVFORGE_DASHBOARD_TOKEN" */
  readonly tokenEnv?: string;
}

/** Default port of `envforge dashboard`. */
export const DASHBOARD_PORT = 8700;

/**
 * `envforge dashboard`: serves the dashboard over the given folders until SIGTERM or SIGINT, then
 * exits 0. Exit 2 (thrown ConfigError) for a non-loopback host without a token, a short token, or
 * an address in use.
 */
export async function dashboardCommand(flags: DashboardFlags): Promise<number> {
  const folders = flags.out ?? [RUNS_FOLDER];
  const tokenEnv = flags.tokenEnv ?? "ENVFORGE_DASHBOARD_TOKEN";
  const tokens = readTokens(process.env, tokenEnv);
  const host = flags.host ?? "127.0.0.1";
  const port = flags.port ?? DASHBOARD_PORT;
  let server: DashboardServer;
  try {
    server = await startDashboardServer({ folders, host, port, tokens, tokenEnv });
  } catch (error) {
    if (error instanceof ConfigError) throw error;
    throw new ConfigError(`cannot serve the dashboard on ${host}:${port}: ${(error as Error).message}`, { cause: error });
  }
  const missing = folders.filter((folder) => !existsSync(folder));
  process.stdout.write(
    `envforge dashboard: ${server.url}/${tokens.length > 0 ? `#token=<a token from ${tokenEnv}>` : ""} over ${folders.join(", ")}` +
      `${missing.length > 0 ? ` (not found yet: ${missing.join(", ")})` : ""}; read-only; ${tokens.length > 0 ? "bearer token required" : "loopback only"}; Ctrl-C stops\n`,
  );
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once("SIGTERM", () => resolve("SIGTERM"));
    process.once("SIGINT", () => resolve("SIGINT"));
  });
  await server.close();
  process.stdout.write(`envforge dashboard: ${signal}: stopped\n`);
  return 0;
}
