import { execFile, spawn, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../adapters/sandbox/index.js";
import { oraclePolicy, playEpisode } from "../core/rollout/index.js";
import { HARBOR_SEED, harborTaskName } from "../adapters/formats/index.js";
import { seedCatalog, readRunStore, storeCatalog } from "../server/index.js";
import type { EnvPackage, Episode } from "../spec/index.js";
import { startTestServer } from "../testing/serve-fixtures.js";
import { exportEnvironments } from "./export-env-command.js";

// Exports a seed and an evolved environment (fixtures/evolution-run: a real `envforge evolve`
// run), installs each package into a FRESH virtual environment with pip (Gymnasium 1.4.0 from
// PyPI; OpenEnv 0.10.0 pinned as scripts/openenv10-requirements.txt), and runs each ecosystem's own
// tools: Gymnasium's check_env; OpenEnv's discovery, `openenv validate` (the package, and the
// running server with --url) and its client; verifiers 0.4.0's loading by taskset id and a rollout
// through its API. Each replays envforge's own oracle trajectory (played in envforge's sandbox) and
// must see the same observations, rewards and ends, step for step.

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const EVOLUTION = join(ROOT, "fixtures", "evolution-run");
const work = mkdtempSync(join(tmpdir(), "envforge-export-eco-"));
const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
const children: ChildProcess[] = [];
afterAll(async () => {
  for (const child of children) child.kill("SIGTERM");
  await sandbox.close();
  rmSync(work, { recursive: true, force: true });
});

const seed = seedCatalog().resolve("number-guess");
const [, evolved] = readRunStore(EVOLUTION, (store) => storeCatalog(store).list({ lineage: "lin-number-guess-d7f76796" }).environments);
const EPISODES = [
  { name: "number-guess", pkg: seed.package, seed: 3, level: 2 },
  { name: "number-guess-g1", pkg: evolved?.package as EnvPackage, seed: 7, level: 0 },
] as const;

/** envforge's own oracle episode of a package, in the sandbox. */
async function envforgeEpisode(pkg: EnvPackage, episodeSeed: number, level: number): Promise<Episode> {
  const opened = await sandbox.open({ envSource: pkg.envSource, oracleSource: pkg.oracleSource });
  if (opened.kind !== "ok") throw new Error(opened.message);
  try {
    return await playEpisode(opened.value, pkg.manifest, episodeSeed, oraclePolicy(opened.value), { level });
  } finally {
    await opened.value.close();
  }
}

async function freshVenv(name: string, ...installs: string[][]): Promise<string> {
  const venv = join(work, name);
  await run("/usr/bin/python3", ["-m", "venv", venv], { timeout: 60_000 });
  for (const args of installs) await run(join(venv, "bin", "pip"), ["install", "--quiet", "--disable-pip-version-check", ...args], { timeout: 600_000, maxBuffer: 1 << 24 });
  return venv;
}

async function python(venv: string, script: string, input: unknown, args: string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<Record<string, any>> {
  const child = execFile(join(venv, "bin", "python"), [script, ...args], { timeout: 600_000, maxBuffer: 1 << 24, env });
  const stdout = new Promise<string>((resolve, reject) => {
    let text = "";
    let errors = "";
    child.stdout?.on("data", (chunk) => (text += chunk));
    child.stderr?.on("data", (chunk) => (errors += chunk));
    child.on("close", (code) => (code === 0 ? resolve(text) : reject(new Error(`${script} exited ${code}: ${errors.slice(-3000)}`))));
  });
  child.stdin?.end(JSON.stringify(input));
  return JSON.parse(await stdout) as Record<string, any>;
}

function sameTrajectory(envforge: Episode, steps: { observation: string; reward: number; terminated: boolean; truncated: boolean }[]): void {
  expect(steps.map((step) => step.observation)).toEqual(envforge.turns.map((turn) => turn.observation));
  expect(steps.map((step) => step.reward)).toEqual(envforge.turns.map((turn) => turn.reward));
  expect(steps.at(-1)?.terminated).toBe(envforge.terminated);
  expect(steps.at(-1)?.truncated).toBe(envforge.truncated);
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const port = (server.address() as { port: number }).port;
      server.close(() => resolve(port));
    });
  });
}

describe("export to Gymnasium, checked by Gymnasium 1.4.0 in a fresh virtualenv", () => {
  let episodes: Episode[];
  let report: Record<string, any>;
  let remote: Record<string, any>;
  beforeAll(async () => {
    const exported = [
      ...exportEnvironments(["number-guess"], { format: "gymnasium", out: join(work, "gym") }).packages,
      ...exportEnvironments([evolved?.id ?? ""], { format: "gymnasium", out: join(work, "gym"), store: EVOLUTION }).packages,
    ];
    const venv = await freshVenv("gym-venv", ["gymnasium==1.4.0"], exported.map((item) => item.folder));
    episodes = await Promise.all(EPISODES.map((episode) => envforgeEpisode(episode.pkg, episode.seed, episode.level)));
    report = await python(venv, join(ROOT, "src/adapters/formats/gymnasium_check.py"), {
      packages: exported.map((item) => [item.module, `envforge/${item.distribution.replace(/^envforge-gym-/, "")}-v0`]),
      episodes: EPISODES.map((episode, index) => ({ id: `envforge/${episode.name}-v0`, seed: episode.seed, level: episode.level, actions: episodes[index]?.turns.map((turn) => turn.action) })),
    });
    // the safe option: the same packages play their episodes in a running envforge serve (jailed there), by content id
    const token = "export-remote-test-token-0123456";
    const server = await startTestServer({ tokens: [token], packages: [seed.package, evolved?.package as EnvPackage] });
    try {
      remote = await python(
        venv,
        join(ROOT, "src/adapters/formats/gymnasium_check.py"),
        {
          packages: exported.map((item) => [item.module, ""]),
          check: false,
          oracle: false,
          episodes: EPISODES.map((episode, index) => ({ id: `envforge/${episode.name}-v0`, seed: episode.seed, level: episode.level, actions: episodes[index]?.turns.map((turn) => turn.action) })),
        },
        [],
        { ...process.env, ENVFORGE_SERVER_URL: server.server.url, ENVFORGE_SERVE_TOKEN: token },
      );
    } finally {
      await server.stop();
    }
  }, 900_000);

  it("check_env passes with no warning for the seed and the evolved generation", () => {
    expect(report.gymnasium).toBe("1.4.0");
    expect(report.warnings).toEqual({ "envforge/number-guess-v0": [], "envforge/number-guess-g1-v0": [] });
  });

  it("a seeded rollout matches envforge's own trajectory step for step, and the exported oracle wins", () => {
    for (const [index, episode] of episodes.entries()) {
      const played = report.episodes[index];
      expect(episode.won).toBe(true);
      expect(played.initial).toBe(episode.initialObservation);
      expect(played.info).toMatchObject({ seed: EPISODES[index]?.seed, level: EPISODES[index]?.level, env_id: index === 0 ? seed.id : evolved?.id });
      sameTrajectory(episode, played.steps);
      expect(played.last_info).toMatchObject({ return: episode.return, won: true });
      expect(played.oracle_actions).toEqual(episode.turns.map((turn) => turn.action));
      expect(played.oracle_won).toBe(true);
    }
  });

  it("with ENVFORGE_SERVER_URL the package plays in envforge serve instead (RemoteEpisode), the same trajectory", () => {
    for (const [index, episode] of episodes.entries()) {
      const played = remote.episodes[index];
      expect(played.kind).toBe("RemoteEpisode");
      expect(played.initial).toBe(episode.initialObservation);
      sameTrajectory(episode, played.steps);
      expect(played.last_info).toMatchObject({ return: episode.return, won: true });
    }
  });
});

describe("export to OpenEnv, checked by openenv 0.10.0 in a fresh virtualenv", () => {
  let episodes: Episode[];
  const reports: Record<string, any>[] = [];
  const validations: Record<string, any>[] = [];
  const staticChecks: Record<string, any>[] = [];
  beforeAll(async () => {
    const exported = [
      ...exportEnvironments(["number-guess"], { format: "openenv", out: join(work, "openenv") }).packages,
      ...exportEnvironments([evolved?.id ?? ""], { format: "openenv", out: join(work, "openenv"), store: EVOLUTION }).packages,
    ];
    const venv = await freshVenv("openenv-venv", ["--no-deps", "-r", join(ROOT, "scripts/openenv10-requirements.txt")], exported.map((item) => item.folder));
    episodes = await Promise.all(EPISODES.map((episode) => envforgeEpisode(episode.pkg, episode.seed, episode.level)));
    for (const [index, item] of exported.entries()) {
      const { stdout } = await run(join(venv, "bin", "openenv"), ["validate", item.folder, "--skip-build", "--json"], { timeout: 120_000 }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
      staticChecks.push(JSON.parse(stdout));
      const port = await freePort();
      const server = spawn(join(venv, "bin", "python"), ["-m", `${item.module}.server.app`, "--port", String(port)], { cwd: work, stdio: "ignore" });
      children.push(server);
      const url = `http://127.0.0.1:${port}`;
      for (let attempt = 0; attempt < 120; attempt += 1) {
        if (await fetch(`${url}/health`).then((response) => response.ok, () => false)) break;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
      const validated = await run(join(venv, "bin", "openenv"), ["validate", "--url", url, "--json"], { timeout: 120_000 }).catch((error: { stdout: string }) => ({ stdout: error.stdout }));
      validations.push(JSON.parse(validated.stdout));
      const episode = EPISODES[index];
      const key = item.module.replace(/_env$/, "");
      const stem = key.split("_").map((part) => part[0]?.toUpperCase() + part.slice(1)).join("");
      reports.push(await python(venv, join(ROOT, "src/adapters/formats/openenv_check.py"), { key, module: item.module, action: `${stem}Action`, episodes: [{ seed: episode?.seed, level: episode?.level, actions: episodes[index]?.turns.map((turn) => turn.action) }] }, [url]));
      server.kill("SIGTERM");
    }
  }, 900_000);

  it("`openenv validate` passes the package's static manifest check and all six runtime criteria of the running server", () => {
    for (const check of staticChecks) expect(check.results.find((result: { check_id: string }) => result.check_id === "static.manifest")).toMatchObject({ status: "pass" });
    for (const validation of validations) {
      expect(validation.criteria.filter((criterion: { passed: boolean }) => !criterion.passed)).toEqual([]);
      expect(validation).toMatchObject({ passed: true, mode: "simulation" });
    }
  });

  it("OpenEnv's discovery finds both packages, AutoEnv gives their clients, and a rollout matches envforge's trajectory step for step", () => {
    expect(reports[0]?.discovered).toEqual(expect.arrayContaining(["number_guess", "number_guess_g1"]));
    expect(reports.map((report) => report.client)).toEqual(["number_guess_env.client.NumberGuessEnv", "number_guess_g1_env.client.NumberGuessG1Env"]);
    for (const [index, episode] of episodes.entries()) {
      const played = reports[index]?.episodes[0];
      expect(played.initial.text).toBe(episode.initialObservation);
      expect(played.initial.metadata).toMatchObject({ seed: EPISODES[index]?.seed, level: EPISODES[index]?.level });
      sameTrajectory(episode, played.steps);
      expect(played.steps.at(-1).metadata).toMatchObject({ return: episode.return, won: true });
      expect(played.state).toMatchObject({ step_count: episode.turns.length, level: EPISODES[index]?.level });
    }
  });
});


describe("export to verifiers, checked by verifiers 0.4.0 in a fresh virtualenv", () => {
  let episodes: Episode[];
  let report: Record<string, any>;
  beforeAll(async () => {
    const exported = [
      ...exportEnvironments(["number-guess"], { format: "verifiers", out: join(work, "verifiers") }).packages,
      ...exportEnvironments([evolved?.id ?? ""], { format: "verifiers", out: join(work, "verifiers"), store: EVOLUTION }).packages,
    ];
    // uv runs verifiers' chat harness (it installs the harness's own packages from PyPI on first use; its cache is kept)
    const venv = await freshVenv("verifiers-venv", ["verifiers==0.4.0", "uv"], exported.map((item) => item.folder));
    episodes = await Promise.all(EPISODES.map((episode) => envforgeEpisode(episode.pkg, episode.seed, episode.level)));
    const home = join(work, "home");
    const cache = process.env.ENVFORGE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(process.env.HOME ?? "/root", ".cache"), "envforge");
    const env = { ...process.env, HOME: home, UV_CACHE_DIR: join(cache, "uv"), PATH: `${join(venv, "bin")}:${process.env.PATH ?? ""}`, UV_PYTHON: join(venv, "bin", "python"), UV_PYTHON_DOWNLOADS: "never" };
    const reports = [];
    for (const [index, item] of exported.entries()) {
      const episode = EPISODES[index];
      // the replies are envforge's oracle actions, served by a scripted endpoint: a test double of the model, for the control flow
      reports.push(await python(venv, join(ROOT, "src/adapters/formats/verifiers_check.py"), { id: item.distribution, episodes: [{ seed: episode?.seed, level: episode?.level, replies: episodes[index]?.turns.map((turn) => turn.action) }] }, [], env));
    }
    report = { episodes: reports.flatMap((item) => item.episodes), env: reports.map((item) => item.env), loadEnvironment: reports.map((item) => item.load_environment) };
  }, 1_200_000);

  it("verifiers loads each package by its taskset id (and load_environment()), and a rollout through its API replays envforge's trajectory with the episode return as reward", () => {
    expect(report.env).toEqual(["EpisodeEnv", "EpisodeEnv"]);
    expect(report.loadEnvironment).toEqual(["EpisodeEnv", "EpisodeEnv"]);
    for (const [index, episode] of episodes.entries()) {
      const played = report.episodes[index];
      expect(played).toMatchObject({ ok: true, errors: [] });
      expect(played.prompt).toBe(episode.initialObservation);
      const users = played.messages.filter((message: { role: string }) => message.role === "user").map((message: { content: string }) => message.content);
      expect(users).toEqual([episode.initialObservation, ...episode.turns.slice(0, -1).map((turn) => turn.observation)]);
      sameTrajectory(episode, played.steps);
      expect(played.reward).toBe(episode.return);
      expect(played.metrics).toMatchObject({ won: 1 });
    }
  });
});

describe("export to Harbor, checked by Harbor 0.25.0's own task model and a trial without Docker", () => {
  const HARBOR_PYTHON = join(ROOT, ".venv-harbor", "bin", "python");
  const LEVELS = [2, 0]; // the seed's task at level 2, the evolved generation's at level 0 (each at HARBOR_SEED)
  let episodes: Episode[];
  let report: Record<string, any>;
  let folders: string[];
  beforeAll(async () => {
    if (!existsSync(HARBOR_PYTHON)) throw new Error(`${HARBOR_PYTHON} is missing: run ./scripts/setup.sh (it installs Harbor's task model into .venv-harbor)`);
    const exported = [
      ...exportEnvironments(["number-guess"], { format: "harbor", out: join(work, "harbor") }).packages,
      ...exportEnvironments([evolved?.id ?? ""], { format: "harbor", out: join(work, "harbor"), store: EVOLUTION }).packages,
    ];
    folders = exported.map((item, index) => join(item.folder, `${EPISODES[index]?.name}-level-${LEVELS[index]}`));
    episodes = await Promise.all(EPISODES.map((episode, index) => envforgeEpisode(episode.pkg, HARBOR_SEED, LEVELS[index] ?? 0)));
    report = await python(join(ROOT, ".venv-harbor"), join(ROOT, "src/adapters/formats/harbor_check.py"), {
      tasks: folders.map((folder, index) => ({ folder, actions: episodes[index]?.turns.map((turn) => turn.action) })),
    });
  }, 600_000);

  it("writes one task per level that Harbor's TaskConfig and TaskPaths accept, with the oracle only in solution/ and no hint in the container", () => {
    expect(readdirSync(join(work, "harbor", "envforge-harbor-number-guess")).filter((name) => name.startsWith("number-guess-level-")).length).toBe(seed.package.manifest.levels?.count);
    for (const [index, task] of report.tasks.entries()) {
      expect(task).toMatchObject({ name: harborTaskName(EPISODES[index]?.name ?? "", LEVELS[index] ?? 0), instruction: true, dockerfile: true, test: "tests/test.sh", solve: "solution/solve.sh", oracle_in_environment: false });
      // the agent's copy of the manifest has no hint; the verifier's is exact; every process plays with envforge's hash seed
      expect(task).toMatchObject({ hint_in_environment: false, hint_for_verifier: true, hash_seed: [true, true, true] });
    }
  });

  it("the solution wins (reward 1); envforge's oracle replies through the agent's command see envforge's observations and win; no reply and a tampered /app score 0", () => {
    for (const [index, task] of report.tasks.entries()) {
      const episode = episodes[index] as Episode;
      expect(task.solution).toMatchObject({ played: 0, verifier_exit: 0, reward: "1" });
      expect(task.actions.played).toEqual(episode.turns.map((turn) => turn.observation));
      expect(task.actions).toMatchObject({ reward: "1", episode: { won: true, return: episode.return } });
      sameTrajectory(episode, task.actions.episode.steps);
      expect(task.no_reply).toMatchObject({ reward: "0", episode: { steps: [], won: false } });
      // the agent's own copy says it won; the verifier's replay on its copy does not
      expect(task.tampered.played).toMatch(/^won/);
      expect(task.tampered.reward).toBe("0");
    }
  });
});
