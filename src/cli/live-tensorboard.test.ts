import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readCorpus } from "../adapters/corpus/index.js";
import { loadSeedPackages } from "../adapters/package-files/index.js";
import { BwrapSandbox } from "../adapters/sandbox/index.js";
import { SqliteStore } from "../adapters/store/index.js";
import { NoopTrainer } from "../adapters/trainer/index.js";
import { parseConfig } from "../config/index.js";
import { buildGates } from "../core/admission/index.js";
import { RUN_FILES, runSelfPlay } from "../core/selfplay/index.js";
import { testAdmissionResources } from "../testing/admission-resources.js";
import { answersWithHintOnly, ScriptedModel } from "../testing/scripted-model.js";
import { readEventFile } from "../testing/tensorboard-events.js";
import { liveTensorBoardExport } from "./live-tensorboard.js";

// A real two-round run (real sandbox, store and seed environments; SCRIPTED FAKE model, noop
// trainer, no designs) with metrics.tensorboard set: the event file is rewritten after each round.

const root = mkdtempSync(join(tmpdir(), "envforge-live-tensorboard-"));
const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 1500 } });
afterAll(async () => {
  await sandbox.close();
  rmSync(root, { recursive: true, force: true });
});

describe("metrics.tensorboard during envforge run", () => {
  it("is off by default", () => {
    expect(parseConfig({}).metrics.tensorboard).toBeNull();
    expect(liveTensorBoardExport(parseConfig({}), root, () => undefined)).toBeUndefined();
  });

  it("rewrites the run's event file after every round with every point so far", async () => {
    const outDir = join(root, "live-run");
    const logDir = join(root, "logs");
    const config = parseConfig({ rounds: 2, plays: 2, out: outDir, solver: { environments: 1, maxTurns: 2 }, designer: { designs: 0 }, trainer: { backend: "noop" }, metrics: { tensorboard: logDir } });
    const notices: string[] = [];
    const hook = liveTensorBoardExport(config, outDir, (message) => notices.push(message));
    expect(hook).toBeDefined();
    const seen: { round: number; files: string[]; steps: number[] }[] = [];
    const store = new SqliteStore(join(outDir, RUN_FILES.store));
    try {
      await runSelfPlay({
        config,
        outDir,
        resume: false,
        store,
        model: new ScriptedModel([], answersWithHintOnly),
        sandbox,
        trainer: new NoopTrainer(),
        corpus: readCorpus(null),
        seeds: loadSeedPackages(),
        gates: buildGates(config.admission),
        admission: testAdmissionResources(),
        afterRound: async (round) => {
          await hook?.(round);
          const folder = join(logDir, "live-run");
          const files = readdirSync(folder).filter((name) => name.includes("tfevents"));
          const scalars = readEventFile(join(folder, files[0] as string)).scalars;
          seen.push({ round, files, steps: [...new Set(scalars.map((scalar) => scalar.step))] });
        },
      });
    } finally {
      store.close();
    }
    expect(seen.map(({ round, files, steps }) => [round, files.length, steps])).toEqual([
      [1, 1, [1]],
      [2, 1, [1, 2]],
    ]);
    expect(notices).toEqual([expect.stringMatching(/^TensorBoard: \d+ scalars in .*live-run.*view: tensorboard --logdir /)]);
    const file = join(logDir, "live-run", readdirSync(join(logDir, "live-run"))[0] as string);
    const scalars = readEventFile(file).scalars;
    expect(scalars.filter((scalar) => scalar.tag === "solver/episodes").map((scalar) => [scalar.step, scalar.value])).toEqual([[1, 4], [2, 4]]);
    // the lines carry their time now: wall times are the rounds' own, not the export's
    const roundTimes = scalars.filter((scalar) => scalar.tag === "round/seconds").map((scalar) => scalar.wallTime);
    expect(roundTimes).toHaveLength(2);
    expect(roundTimes[1]).toBeGreaterThanOrEqual(roundTimes[0] as number);
  });

  it("reports a failed export as a notice and never throws", async () => {
    const notices: string[] = [];
    const config = parseConfig({ metrics: { tensorboard: join(root, "logs-2") } });
    const hook = liveTensorBoardExport(config, join(root, "missing-run"), (message) => notices.push(message));
    await expect(hook?.(1)).resolves.toBeUndefined();
    expect(notices).toEqual([expect.stringMatching(/TensorBoard export after round 1 failed \(the run goes on\): no run folder at/)]);
    expect(existsSync(join(root, "logs-2"))).toBe(false);
  });
});
