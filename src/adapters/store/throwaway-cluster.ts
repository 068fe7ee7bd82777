import { spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { StoreError } from "../../spec/index.js";
import { freePort } from "../../support/free-port.js";

/** A PostgreSQL cluster in a temporary folder, for tests and benchmarks. */
export interface ThrowawayCluster {
  /** Connection URL of its `postgres` database, user `envforge`, no password (trust on 127.0.0.1 only). */
  readonly url: string;
  /** Restarts the server (fast shutdown, then start on the same port): every client's connection is lost. */
  restart(): void;
  /** Stops the server (fast shutdown) and removes the folder. Safe to call twice. */
  stop(): void;
}

/**
 * Starts a throwaway PostgreSQL cluster: `initdb` in a temporary folder, `pg_ctl start` on a free
 * port of 127.0.0.1 with `fsync=off` (nothing in it outlives the process). As root, the server runs
 * as the `postgres` user (PostgreSQL refuses root). The binaries come from `PG_BINDIR`, else
 * Debian's `/usr/lib/postgresql/<newest>/bin` (`scripts/setup.sh` installs postgresql-15).
 *
 * @throws StoreError when PostgreSQL is not installed or the cluster does not start (the message holds its log)
 */
export async function startThrowawayCluster(): Promise<ThrowawayCluster> {
  const bin = postgresBinaries();
  const folder = mkdtempSync(join(tmpdir(), "envforge-pg-"));
  const asRoot = userInfo().uid === 0;
  const run = (program: string, args: readonly string[]) => {
    const command = asRoot ? ["runuser", "-u", "postgres", "--", join(bin, program), ...args] : [join(bin, program), ...args];
    return spawnSync(command[0]!, command.slice(1), { encoding: "utf8", timeout: 60_000 });
  };
  if (asRoot) chownSync(folder, postgresUid(), -1);
  const data = join(folder, "data");
  const init = run("initdb", ["-D", data, "-A", "trust", "-U", "envforge", "--no-sync", "-E", "UTF8"]);
  if (init.status !== 0) {
    rmSync(folder, { recursive: true, force: true });
    throw new StoreError(`initdb failed: ${init.stderr || init.error?.message}`);
  }
  const port = await freePort();
  const startArguments = ["-D", data, "-l", join(folder, "server.log"), "-w", "-o", `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=200`, "start"];
  const start = run("pg_ctl", startArguments);
  if (start.status !== 0) {
    const log = spawnSync("tail", ["-20", join(folder, "server.log")], { encoding: "utf8" }).stdout;
    rmSync(folder, { recursive: true, force: true });
    throw new StoreError(`pg_ctl start failed: ${start.stderr}${log}`);
  }
  let stopped = false;
  return {
    url: `postgres://envforge@127.0.0.1:${port}/postgres`,
    restart() {
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      const again = run("pg_ctl", startArguments);
      if (again.status !== 0) throw new StoreError(`pg_ctl start (restart) failed: ${again.stderr}`);
    },
    stop() {
      if (stopped) return;
      stopped = true;
      run("pg_ctl", ["-D", data, "-m", "fast", "-w", "stop"]);
      rmSync(folder, { recursive: true, force: true });
    },
  };
}

function postgresBinaries(): string {
  const fromEnvironment = process.env.PG_BINDIR;
  if (fromEnvironment !== undefined && existsSync(join(fromEnvironment, "initdb"))) return fromEnvironment;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (newest === undefined) throw new StoreError("PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb): run scripts/setup.sh, or set PG_BINDIR");
  return join(root, newest, "bin");
}

function postgresUid(): number {
  const id = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  if (id.status !== 0) throw new StoreError("running as root, and there is no postgres user to run the throwaway cluster as (install postgresql-15)");
  return Number(id.stdout.trim());
}
