import { parseConfig } from "../config/index.js";
import { EnvManifestSchema, packageId, type EnvPackage } from "../spec/index.js";
import { BwrapSandbox } from "../adapters/sandbox/index.js";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { EnvironmentCatalog, type ServedEnvironment } from "../server/catalog.js";
import { startEnvironmentServer, type EnvironmentServer, type ServeSettings } from "../server/environment-server.js";

/** A package around `envSource` with a valid manifest (multi-turn, reward range [0, 1], threshold 1). */
export function testPackage(name: string, envSource: string, manifest: Partial<Record<string, unknown>> = {}): EnvPackage {
  return {
    manifest: EnvManifestSchema.parse({
      schemaVersion: 1,
      name,
      title: `Test environment ${name}`,
      description: "A test environment for the server tests.",
      interaction: "multi-turn",
      maxTurns: 5,
      rewardRange: [0, 1],
      passThreshold: 1,
      hint: "There is nothing to hint at in a test environment.",
      skills: ["testing"],
      scenario: "server tests",
      provenance: { origin: "seed", createdAt: "2026-12-01T00:00:00.000Z" },
      ...manifest,
    }),
    envSource,
    oracleSource: "def act(env, observation):\n    return 'x'\n",
  };
}

/** Echoes actions; ends with reward 1 on `win`, after 3 steps truncated otherwise. */
export const ECHO_ENV = [
  "class Echo:",
  "    def reset(self, seed):",
  "        self.seed = seed",
  "        self.turns = 0",
  "        return f'hello {seed}'",
  "    def step(self, action):",
  "        self.turns += 1",
  "        if action == 'win':",
  "            return ('you win', 1.0, True, False, {'turn': self.turns})",
  "        return (f'echo {action}', 0.0, False, self.turns >= 3, {'turn': self.turns})",
  "",
].join("\n");

/** Crashes (raises) on its second step. */
export const CRASH_ENV = [
  "class Crash:",
  "    def reset(self, seed):",
  "        self.turns = 0",
  "        return 'ready'",
  "    def step(self, action):",
  "        self.turns += 1",
  "        if self.turns >= 2:",
  "            raise RuntimeError('boom in step')",
  "        return ('first step ok', 0.0, False, False, {})",
  "",
].join("\n");

/** Hangs (sleeps far past any call timeout) on its first step. */
export const HANG_ENV = [
  "import time",
  "class Hang:",
  "    def reset(self, seed):",
  "        return 'ready'",
  "    def step(self, action):",
  "        time.sleep(3600)",
  "        return ('never', 0.0, True, False, {})",
  "",
].join("\n");

/** Test environments: echo, crash, hang and a single-turn one (reward 1 for the answer `42`). */
export function testEnvironments(): EnvPackage[] {
  return [
    testPackage("echo", ECHO_ENV),
    testPackage("crash", CRASH_ENV),
    testPackage("hang", HANG_ENV),
    testPackage(
      "answer",
      [
        "class Answer:",
        "    def reset(self, seed):",
        "        return f'What is 6 x 7? (instance {seed})'",
        "    def step(self, action):",
        "        right = action.strip() == '42'",
        "        return ('right' if right else 'wrong', 1.0 if right else 0.0, True, False, {})",
        "",
      ].join("\n"),
      { interaction: "single-turn", maxTurns: 1 },
    ),
  ];
}

/** Served entries for packages (no scores, no lineage). */
export function servedEntries(packages: readonly EnvPackage[]): ServedEnvironment[] {
  return packages.map((pkg) => ({ id: packageId(pkg), name: pkg.manifest.name, package: pkg, scores: null, round: null, lineage: null }));
}

/** Settings of a test server: the defaults on a free port, with `overrides`. */
export function testServeSettings(overrides: Partial<ServeSettings> = {}): ServeSettings {
  return { ...parseConfig({}).serve, port: 0, ...overrides };
}

/** A test server over the test environments and the seeds, with its own bwrap sandbox (short call timeout). */
export async function startTestServer(
  options: { settings?: Partial<ServeSettings>; tokens?: readonly string[]; packages?: readonly EnvPackage[]; callTimeoutMs?: number; now?: () => number } = {},
): Promise<{ server: EnvironmentServer; sandbox: BwrapSandbox; catalog: EnvironmentCatalog; stop: () => Promise<void> }> {
  const sandbox = new BwrapSandbox({ workers: 2, programLingerMs: 60_000, limits: { callTimeoutMs: options.callTimeoutMs ?? 1500 } });
  const catalog = new EnvironmentCatalog(servedEntries(options.packages ?? [...testEnvironments(), ...loadSeedPackages()]));
  const server = await startEnvironmentServer({
    catalog,
    sandbox,
    settings: testServeSettings(options.settings),
    tokens: options.tokens ?? [],
    log: () => undefined,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  return {
    server,
    sandbox,
    catalog,
    stop: async () => {
      await server.close();
      await sandbox.close();
    },
  };
}
