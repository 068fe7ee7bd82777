import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { SqliteStore } from "../../adapters/store/index.js";
import { NoopTrainer } from "../../adapters/trainer/index.js";
import { loadPackageFolder } from "../../adapters/package-files/index.js";
import { packageId, type ChatMessage, type Store } from "../../spec/index.js";
import { ScriptedModel } from "../../testing/scripted-model.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { storedLevelWindows } from "../curriculum/index.js";
import { runRound } from "./round.js";

// The level controller inside real rounds: a SCRIPTED FAKE Solver (control flow only) that adds
// the numbers right up to level 1 and wrong above; the sandbox, store and environment are real.

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 3000 } });
// level L adds L + 2 numbers ("Level L. Add these numbers: a + b + …")
const pkg = loadPackageFolder(new URL("../../../fixtures/levelled-envs/level-sum", import.meta.url).pathname);
const id = packageId(pkg);
const config = parseConfig({ plays: 4, solver: { environments: 1, maxTurns: 1 }, designer: { designs: 0 }, levels: { minSamples: 4, window: 2 } });

function solve(messages: readonly ChatMessage[]): string {
  const text = messages.map((message) => message.content).join("\n");
  const level = Number(/Level (\d+)\./.exec(text)?.[1] ?? 0);
  const terms = (/Add these numbers: ([\d +]+)\./.exec(text)?.[1] ?? "").split("+").map((term) => Number(term.trim()));
  return String(level <= 1 ? terms.reduce((total, term) => total + term, 0) : 0);
}

function store(): Store {
  const fresh = new SqliteStore(":memory:");
  fresh.addEnvironment({ id, package: pkg, round: null, scores: null });
  return fresh;
}

async function rounds(target: Store, count: number) {
  const reports = [];
  for (let round = 1; round <= count; round += 1) {
    reports.push(await runRound(round, { config, model: new ScriptedModel([], solve), sandbox, store: target, trainer: new NoopTrainer(), corpus: [], gates: [], admission: testAdmissionResources(), progress: {} }));
  }
  return reports;
}

describe("the level controller in self-play rounds", () => {
  it("raises the window while the Solver wins at its top, stops where it fails, and reports each window", async () => {
    const first = store();
    const reports = await rounds(first, 4);
    // round 1: 4 of 4 at level 0 -> [0, 1]; round 2: 3 plays at level 1 (all won), fewer than minSamples 4: no decision;
    // round 3: 3 more at level 1, 6 of 6 -> [1, 2] (d = 2); round 4: level 2 is lost (3 of 3), no decision yet
    expect(reports.map((report) => report.levels?.[0]?.window)).toEqual([[0, 0], [0, 1], [0, 1], [1, 2]]);
    expect(reports.map((report) => report.levels?.[0]?.next)).toEqual([[0, 1], [0, 1], [1, 2], [1, 2]]);
    expect(reports[3]?.levels?.[0]?.byLevel).toEqual({ "1": { episodes: 1, wins: 1 }, "2": { episodes: 3, wins: 0 } });
    const levels = first.listEpisodes(4).map((record) => record.episode.level);
    expect(levels.every((level) => level === 1 || level === 2)).toBe(true);
    // groups of one round mix won and lost levels: the returns differ, so GRPO gets a signal
    expect(reports[3]?.solver.signal?.returnVariance).toBeGreaterThan(0);
    // the state is the stored episodes: a reader (resume, the server) replays the same window
    expect(storedLevelWindows(first, first.listEnvironments(), 5, config.levels).get(id)).toMatchObject({ low: 1, high: 2, attempts: 3, wins: 0 });

    // a second run from the same seed plays the same levels and seeds (what --resume relies on)
    const second = store();
    await rounds(second, 3);
    const played = (target: Store) => target.listEpisodes(3).map((record) => [record.episode.seed, record.episode.level]);
    expect(played(second)).toEqual(played(first));
    first.close();
    second.close();
    await sandbox.close();
  });
});
