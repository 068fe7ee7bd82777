import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  INVALID_ACTION_INFO_KEY,
  type EnvAction,
  type EnvProgram,
  type EnvSession,
  type OpenEnvTask,
  type Sandbox,
  type SandboxOutcome,
  type StepResult,
  type TerminalImage,
  type TerminalRuntime,
  type TerminalSession,
  type TerminalTask,
} from "../../spec/index.js";

/** The driver that plays an OpenEnv package inside the jail (copied into each root). */
export const OPENENV_DRIVER_PATH = fileURLToPath(new URL("./openenv_driver.py", import.meta.url));

/** The Debian image OpenEnv packages run in: a minimal root with Python 3 (Debian 12's 3.11, as OpenEnv's wheels here). */
export const OPENENV_IMAGE: TerminalImage = { suite: "bookworm", packages: ["python3"] };

/** Where OpenEnv's modules (openenv 0.10 and its dependencies) appear in the root, read-only. */
export const OPENENV_MODULES_IN_ROOT = "/opt/envforge-openenv";

/**
 * The site-packages of the virtual environment `scripts/setup.sh` installs openenv 0.10 into
 * (`.venv-openenv10` in the checkout), or null when it is missing.
 */
export function openEnvSitePackages(checkout: string = fileURLToPath(new URL("../../../", import.meta.url))): string | null {
  const lib = join(checkout, ".venv-openenv10", "lib");
  if (!existsSync(lib)) return null;
  const python = readdirSync(lib).find((name) => /^python3\.\d+$/.test(name));
  const site = python === undefined ? null : join(lib, python, "site-packages");
  return site !== null && existsSync(join(site, "openenv")) ? site : null;
}

/** Options of {@link OpenEnvSession}. */
export interface OpenEnvSessionOptions {
  /** The host folder of OpenEnv's modules (see {@link openEnvSitePackages}). */
  readonly sitePackages: string;
  /** Wall-clock limit of one reset or step, milliseconds. @default 30000 */
  readonly callTimeoutMs?: number;
  /** Wall-clock limit of loading the package (its server app and environment), milliseconds. @default 120000 */
  readonly loadTimeoutMs?: number;
}

/** The terminal task an OpenEnv package's episodes run in: its image, the package and the driver copied in, OpenEnv's modules bound. */
export function openEnvTerminalTask(task: OpenEnvTask, sitePackages: string): TerminalTask {
  return {
    name: task.name,
    folder: task.folder,
    instruction: task.description,
    image: OPENENV_IMAGE,
    setup: [
      { kind: "copy", from: task.folder, to: `/envforge/package/${task.pythonPackage}` },
      { kind: "copy", from: OPENENV_DRIVER_PATH, to: "/envforge/openenv_driver.py" },
    ],
    workdir: "/envforge",
    env: { PYTHONPATH: `${OPENENV_MODULES_IN_ROOT}:/envforge/package`, PYTHONDONTWRITEBYTECODE: "1", PYTHONHASHSEED: "0" },
    network: false,
    testsDir: task.folder,
    tests: "",
    solutionDir: null,
    solution: null,
    agentTimeoutSec: task.resources.episodeTimeoutSec,
    verifierTimeoutSec: 120,
    storageMb: task.resources.diskMb,
    memoryMb: task.resources.memoryMb,
    cpus: task.resources.cpus,
    metadata: {},
    filesDigest: task.filesDigest,
    readOnlyBinds: [{ host: sitePackages, jail: OPENENV_MODULES_IN_ROOT }],
  };
}

/** `text` as one single-quoted shell word. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

/** The shell lines that start the driver behind two FIFOs the shell keeps open (fd 3 to it, fd 4 from it). */
function startDriver(task: OpenEnvTask): string {
  // the reader allows identifiers only; quoted all the same (a stored package is data)
  const args = [task.pythonPackage, task.environmentModule, task.environmentClass].map(shellQuote).join(" ");
  return [
    "rm -f /tmp/.envforge-in /tmp/.envforge-out && mkfifo /tmp/.envforge-in /tmp/.envforge-out",
    `(cd /envforge/package && exec python3 /envforge/openenv_driver.py ${args} </tmp/.envforge-in >/tmp/.envforge-out 2>/tmp/.envforge-driver.log &)`,
    "exec 3>/tmp/.envforge-in 4</tmp/.envforge-out",
    "echo started",
  ].join("\n");
}

/**
 * An OpenEnv package as an {@link EnvSession}, so every admission gate, the episode loop and the
 * server play it as any environment: the first `reset` opens a root in the terminal jail (no
 * network, the package's resource limits), copies the package in, starts the driver
 * (`openenv_driver.py`), which imports the package's server app and makes its environment; a
 * server that does not import, an environment that cannot be made or an oracle.py that does not
 * import fails that reset (`crash`, the message naming the stage). Each `reset(seed)` and `step`
 * is one request to the driver through the shell; a reply that does not validate as the package's
 * Action is an invalid action (`info.invalid_action`) and changes nothing. The return is the sum of
 * the observations' rewards; an episode ends when the environment says `done`, and is cut off
 * (`timeout`) past `resources.episodeTimeoutSec` of wall-clock time. `oracleAction`
 * asks the package's optional `oracle.py` (`act(env, observation)`).
 */
export class OpenEnvSession implements EnvSession {
  private session: TerminalSession | null = null;
  private lastObservation = "";
  /** When the current episode's wall-clock budget (`resources.episodeTimeoutSec`) ends, ms since the epoch. */
  private deadline = Number.POSITIVE_INFINITY;

  constructor(
    private readonly runtime: TerminalRuntime,
    private readonly task: OpenEnvTask,
    private readonly withOracle: boolean,
    private readonly options: OpenEnvSessionOptions,
  ) {}

  private async request(body: Record<string, unknown>, timeoutMs: number): Promise<SandboxOutcome<Record<string, unknown>>> {
    const session = this.session;
    if (session === null) return { kind: "protocol_violation", message: "the OpenEnv package is not loaded (reset first)" };
    const line = Buffer.from(JSON.stringify(body)).toString("base64");
    const result = await session.run(`printf '%s\\n' '${line}' >&3 && IFS= read -r -u 4 __envforge_reply && printf '%s\\n' "$__envforge_reply"`, timeoutMs);
    if (result.timedOut) return this.fail("timeout", `the package's ${String(body.op)} ran past ${Math.round(timeoutMs / 1000)} s`);
    if (result.exitCode !== 0 || result.shellRestarted) return this.fail("crash", `the OpenEnv driver ended during ${String(body.op)} (the package's process died); ${result.output.trim().slice(-300)}`);
    try {
      const answer = JSON.parse(result.output.trim().split("\n").at(-1) ?? "") as Record<string, unknown>;
      if (answer.ok !== true) return { kind: "crash", message: `${this.task.name}: ${String(answer.error ?? "the driver refused the request")}` };
      return { kind: "ok", value: answer };
    } catch {
      return this.fail("crash", `the OpenEnv driver's answer to ${String(body.op)} does not read (over ${result.truncated ? "the output limit" : "one line"}): ${result.output.slice(0, 200)}`);
    }
  }

  private async fail(kind: "timeout" | "crash", message: string): Promise<SandboxOutcome<never>> {
    await this.close();
    return { kind, message: `${this.task.name}: ${message}` };
  }

  private async load(): Promise<SandboxOutcome<void>> {
    const opened = await this.runtime.open(openEnvTerminalTask(this.task, this.options.sitePackages));
    if (opened.kind !== "ok") return opened;
    this.session = opened.value;
    const started = await this.session.run(startDriver(this.task), 30_000);
    if (started.exitCode !== 0) return this.fail("crash", `the OpenEnv driver did not start: ${started.output.trim().slice(-300)}`);
    const loaded = await this.request({ op: "load" }, this.options.loadTimeoutMs ?? 120_000);
    if (loaded.kind !== "ok") {
      await this.close();
      return loaded;
    }
    return { kind: "ok", value: undefined };
  }

  async reset(seed: number): Promise<SandboxOutcome<string>> {
    if (this.session === null) {
      const loaded = await this.load();
      if (loaded.kind !== "ok") return loaded;
    }
    this.deadline = Date.now() + this.task.resources.episodeTimeoutSec * 1000;
    const answer = await this.request({ op: "reset", seed }, this.callTimeout());
    if (answer.kind !== "ok") return answer;
    this.lastObservation = String(answer.value.observation ?? "");
    return { kind: "ok", value: this.lastObservation };
  }

  /** One call's limit: `callTimeoutMs`, and no later than the episode's deadline. */
  private callTimeout(): number {
    return Math.max(1000, Math.min(this.options.callTimeoutMs ?? 30_000, this.deadline - Date.now()));
  }

  async step(action: EnvAction): Promise<SandboxOutcome<StepResult>> {
    if (Date.now() >= this.deadline) return this.fail("timeout", `the episode ran past its ${this.task.resources.episodeTimeoutSec} s (openenv.yaml episode_timeout_s, at most ${this.task.resources.episodeTimeoutSec} s here)`);
    const text = typeof action === "string" ? action : JSON.stringify(action);
    const answer = await this.request({ op: "step", action: text }, this.callTimeout());
    if (answer.kind !== "ok") return answer;
    const reward = Number(answer.value.reward ?? 0);
    if (!Number.isFinite(reward)) return this.fail("crash", `step gave a reward that is not a finite number (${String(answer.value.reward)})`);
    this.lastObservation = String(answer.value.observation ?? "");
    return {
      kind: "ok",
      value: { observation: this.lastObservation, reward, terminated: answer.value.done === true, truncated: false, info: answer.value.invalid === true ? { [INVALID_ACTION_INFO_KEY]: true } : {} },
    };
  }

  async oracleAction(): Promise<SandboxOutcome<EnvAction>> {
    if (!this.withOracle) return { kind: "protocol_violation", message: "the oracle was not loaded for this session" };
    if (!this.task.hasOracle) return { kind: "crash", message: `${this.task.name} has no oracle.py: envforge's gates need one (act(env, observation) returning the next action)` };
    const answer = await this.request({ op: "oracle", observation: this.lastObservation }, this.callTimeout());
    if (answer.kind !== "ok") return answer;
    return { kind: "ok", value: String(answer.value.action ?? "") };
  }

  async close(): Promise<void> {
    const session = this.session;
    this.session = null;
    await session?.close();
  }
}

/**
 * A sandbox that also plays OpenEnv packages: a program with `openenvEpisode` opens an
 * {@link OpenEnvSession} on the terminal runtime; every other program goes to `sandbox`. The
 * runtime is asked for only when an OpenEnv package is opened; closing closes `sandbox` (the caller
 * owns the runtime). Without OpenEnv's modules (`sitePackages` null: set-up did not install
 * openenv 0.10) an OpenEnv program is refused with how to install them.
 */
export function withOpenEnvRuntime(sandbox: Sandbox, runtime: () => TerminalRuntime, sitePackages: string | null = openEnvSitePackages()): Sandbox {
  return {
    name: sandbox.name,
    async open(program: EnvProgram): Promise<SandboxOutcome<EnvSession>> {
      const openenv = program.openenvEpisode;
      if (openenv === undefined) return sandbox.open(program);
      if (sitePackages === null) return { kind: "forbidden", message: "OpenEnv's modules are not installed (.venv-openenv10); run ./scripts/setup.sh" };
      return { kind: "ok", value: new OpenEnvSession(runtime(), openenv.task, openenv.withOracle, { sitePackages }) };
    },
    close: () => sandbox.close(),
  };
}
