import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { SqliteStore } from "../../adapters/store/index.js";
import { NoopTrainer } from "../../adapters/trainer/index.js";
import { loadSeedPackages } from "../../adapters/package-files/index.js";
import { readCorpus } from "../../adapters/corpus/index.js";
import { ModelUnavailableError, packageId, type LanguageModel, type Store } from "../../spec/index.js";
import { answersWithHintOnly, designCompletion, ScriptedModel, SECRET_42 } from "../../testing/scripted-model.js";
import { buildGates } from "../admission/index.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { runSelfPlay } from "./run-selfplay.js";
import { ROUND_SECONDS_META, runRound } from "./round.js";
import { ensureHoldout } from "../holdout/index.js";

// Unit tests of the round's control flow. The model is a SCRIPTED FAKE (see
// ScriptedModel); the sandbox, store, gates and seed environments are real.

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 1500 } });
const corpus = readCorpus(null);
const fixedNow = () => new Date("2026-11-29T12:00:00.000Z");

// calibration is left out: the scripted Solver never wins without the hint (a separate test shows it rejecting)
function config(designs: number, skip: string[] = ["calibration"]) {
  return parseConfig({ plays: 2, solver: { environments: 1, maxTurns: 3 }, designer: { designs, repairTurns: 0 }, admission: { seeds: 4, probeSeeds: 2, skip } });
}

/** Scripted reviewer and Solver: reviews accept, the Solver answers right only with the hint. */
function reviewsAccept(messages: Parameters<typeof answersWithHintOnly>[0]): string {
  return messages[0]?.content.startsWith("You review") ? "All criteria hold.\nVERDICT: ACCEPT" : answersWithHintOnly(messages);
}


function freshStore(): Store {
  const store = new SqliteStore(":memory:");
  for (const pkg of loadSeedPackages()) store.addEnvironment({ id: packageId(pkg), package: pkg, round: null, scores: null });
  return store;
}

/** `store`, except that storing the second design throws ("killed"): a run killed mid-round. */
function killedAtSecondDesign(store: Store): Store {
  let saves = 0;
  return Object.assign(Object.create(Object.getPrototypeOf(store)), store, {
    saveDesign(...args: Parameters<Store["saveDesign"]>) {
      saves += 1;
      if (saves === 2) throw new Error("killed");
      store.saveDesign(...args);
    },
  });
}

const good = designCompletion(SECRET_42.manifest, SECRET_42.env, SECRET_42.oracle);
const variant = (env: string, oracle: string = SECRET_42.oracle) => designCompletion({ ...SECRET_42.manifest, name: "variant" }, env, oracle);

async function round(designs: readonly (string | Error)[], store = freshStore(), count = designs.length, skip?: string[], now: () => Date = fixedNow) {
  const model = new ScriptedModel(designs, reviewsAccept);
  const settings = config(count, skip);
  const report = await runRound(1, {
    config: settings,
    model,
    sandbox,
    store,
    trainer: new NoopTrainer(),
    corpus,
    gates: buildGates(settings.admission),
    admission: testAdmissionResources(),
    progress: {},
    now,
  });
  return { report, store, model };
}

describe("self-play round (scripted fake model)", () => {
  it("admits a working design, calibrates it with and without the hint, and scores the SPADE reward", async () => {
    const { report, store } = await round([good]);
    expect(report).toMatchObject({ round: 1, proposed: 1, admitted: 1, rejected: {} });
    const [design] = store.listDesigns(1);
    // no-hint win rate 0, hint win rate 1 → regret 1 → 0.4·1 + 0.6·anchor(0) = 0.4
    expect(design?.reward).toBeCloseTo(0.4);
    expect(design?.verdicts.map((verdict) => verdict.gate)).toEqual([
      "parse", "static", "executable", "deterministic", "oracle", "negative-controls", "scorer-contract", "hint", "levels", "novelty", "decontamination", "self-review",
    ]);
    const admitted = store.listEnvironments().find((record) => record.id === design?.environmentId);
    expect(admitted?.scores).toMatchObject({ plays: 2, winRateNoHint: 0, winRateHint: 1, regret: 1 });
    expect(admitted?.package.manifest.provenance).toMatchObject({ origin: "designer", designerModel: "scripted-fake", createdAt: "2026-11-29T12:00:00.000Z" });
    const calibration = store.listEpisodes(1).filter((record) => record.role === "calibration");
    expect(calibration.map((record) => [record.hint, record.episode.won])).toEqual([[false, false], [false, false], [true, true], [true, true]]);
    // the solver phase played one seed environment under both hint conditions
    expect(store.listEpisodes(1).filter((record) => record.role === "solver")).toHaveLength(4);
    // the training step saw 8 Solver samples (4 solver phase + 4 calibration) and 1 Designer sample
    expect(report.diagnostics).toMatchObject({
      step: 1,
      solver: { samples: 8 },
      designer: { samples: 1, winRateNoHint: 0, winRateHint: 1, admissionFunnel: { designs: 1, admitted: 1 } },
    });
    expect(report.trainer).toEqual({ name: "noop", policyVersion: 0, datums: 0 });
  });

  it("turns every kind of bad design into a typed rejection and keeps going", async () => {
    const designs = [
      "I would rather write a poem about environments.",
      designCompletion(SECRET_42.manifest, SECRET_42.env, "# no oracle here\n"),
      variant("class Broken:\n    def reset(self, seed):\n        return 'x'\n    def step(self, action):\n        raise RuntimeError('boom')\n"),
      variant("class Hang:\n    def reset(self, seed):\n        return 'x'\n    def step(self, action):\n        while True:\n            pass\n"),
      variant("class Free:\n    def reset(self, seed):\n        return f'x{seed}'\n    def step(self, action):\n        return ('ok', 1.0, True, False, {})\n"),
      variant(SECRET_42.env, "def act(env, observation):\n    return '41'\n"),
      variant("class Syntax(:\n    def reset(self, seed): pass\n    def step(self, action): pass\n"),
      new ModelUnavailableError("server down"),
    ];
    const { report } = await round(designs);
    expect(report.proposed).toBe(8);
    expect(report.admitted).toBe(0);
    expect(report.rejected).toEqual({
      unparseable: 1,
      missing_oracle: 1,
      step_failed: 2,
      empty_solution_passes: 1,
      oracle_failed: 1,
      syntax_error: 1,
      model_error: 1,
    });
    expect(Object.keys(report.errors)).toEqual(["model_unavailable: server down"]);
    // penalties: unparseable −1 (×2: no code, no oracle), mechanical rejections −0.5 (×5); model errors are not counted
    expect(report.designer.meanReward).toBeCloseTo((-1 * 2 - 0.5 * 5) / 7);
  });

  it("runs the calibration gate with the Solver and reports its reason", async () => {
    // the scripted Solver never answers right without the hint: pass rate 0 of 8, then 0 of 16 in the second stage
    const { report, store } = await round([good], freshStore(), 1, []);
    expect(report).toMatchObject({ admitted: 0, rejected: { too_hard: 1 } });
    const verdict = store.listDesigns(1)[0]?.verdicts.at(-1);
    expect(verdict).toMatchObject({ gate: "calibration", reason: "too_hard", evidence: { plays: 16, wins: 0, secondStage: true } });
  });

  it("rejects an exact copy of an environment in memory", async () => {
    const seed = loadSeedPackages()[0]!;
    const copy = designCompletion(
      { name: seed.manifest.name, title: seed.manifest.title, description: seed.manifest.description, maxTurns: seed.manifest.maxTurns, hint: seed.manifest.hint, skills: seed.manifest.skills, scenario: seed.manifest.scenario, difficulty: seed.manifest.difficulty, ...(seed.manifest.levels === undefined ? {} : { levels: seed.manifest.levels }) },
      seed.envSource,
      seed.oracleSource,
    );
    const { report } = await round([copy]);
    expect(report.rejected).toEqual({ exact_copy: 1 });
  });

  it("resumes an interrupted round without losing or duplicating an admitted environment", async () => {
    const store = freshStore();
    const failing = killedAtSecondDesign(store);
    await expect(round([good, "nothing", good], failing)).rejects.toThrow("killed");
    expect(store.listDesigns(1).map((design) => design.index)).toEqual([0]);
    // the resumed round asks the model only for designs 1 and 2; the same environment again is an exact copy
    const { report, model } = await round(["nothing", good], store, 3);
    expect(model.prompts.filter((messages) => messages[0]?.content.startsWith("You are the Designer"))).toHaveLength(2);
    expect(store.listDesigns(1).map((design) => design.index)).toEqual([0, 1, 2]);
    expect(report).toMatchObject({ proposed: 3, admitted: 1, rejected: { unparseable: 1, exact_copy: 1 } });
    expect(store.listEnvironments().filter((record) => record.round === 1)).toHaveLength(1);
  });

  it("a resumed round reports its own seconds and the stored work of its earlier attempt", async () => {
    // a clock that moves 1 s per reading
    const ticking = () => {
      let readings = 0;
      return () => new Date(Date.UTC(2026, 10, 29, 12, 0, readings++));
    };
    const store = freshStore();
    const failing = killedAtSecondDesign(store);
    await expect(round([good, "nothing", good], failing, 3, undefined, ticking())).rejects.toThrow("killed");
    const stored = store.getMeta(`${ROUND_SECONDS_META}1`) as { solver: number; designer: number };
    expect(stored.solver).toBeGreaterThan(0);
    expect(stored.designer).toBeGreaterThan(0);
    const { report } = await round(["nothing", good], store, 3, undefined, ticking());
    expect(report.earlierSeconds).toBeCloseTo(stored.solver + stored.designer, 5);
    expect(report.seconds).toBeGreaterThan(0);
    // a round run in one go has no earlier seconds
    const { report: single } = await round([good], freshStore(), 1, undefined, ticking());
    expect(single.earlierSeconds).toBeUndefined();
  });

  it("names a design whose every attempt was cut at designer.maxTokens by its attempts' verdict in the progress lines and the round report", async () => {
    // a scaffold cut off inside generate(): every attempt is parse/missing_environment, each reply cut at the token bound
    const cut = "```python\nNAME = \"loop\"\nTITLE = \"Loop\"\ndef generate(rng):\n    while True:\n        x = 1\n        x = 1\n";
    const scripted = new ScriptedModel([cut], reviewsAccept);
    const model: LanguageModel = {
      id: scripted.id,
      async generate(messages, options) {
        const generation = await scripted.generate(messages, options);
        return messages[0]?.content.startsWith("You are the Designer") ? { ...generation, finishReason: "length" } : generation;
      },
      close: () => scripted.close(),
    };
    const settings = parseConfig({ plays: 2, solver: { environments: 1, maxTurns: 3 }, designer: { designs: 1, repairTurns: 2 }, admission: { seeds: 4, probeSeeds: 2, skip: ["calibration"] } });
    const lines: string[] = [];
    const store = freshStore();
    const report = await runRound(1, {
      config: settings,
      model,
      sandbox,
      store,
      trainer: new NoopTrainer(),
      corpus,
      gates: buildGates(settings.admission),
      admission: testAdmissionResources(),
      progress: {
        unitProgress: (_round, phase, detail) => phase === "designer" && lines.push(detail),
        unitDone: (_round, phase, detail) => phase === "designer" && lines.push(detail),
      },
      now: fixedNow,
    });
    const [design] = store.listDesigns(1);
    expect([...(design?.repairs ?? []), design].map((attempt) => attempt?.verdicts.at(-1))).toEqual(
      Array.from({ length: 3 }, () => expect.objectContaining({ gate: "parse", reason: "missing_environment" })),
    );
    expect(lines).toEqual([
      expect.stringMatching(/^design 0 attempt 1: rejected by parse: missing_environment \(cut at designer.maxTokens\)/),
      expect.stringMatching(/^design 0 attempt 2: rejected by parse: missing_environment \(cut at designer.maxTokens\)/),
      // the last attempt has no repair-turn line of its own: the final line names its gate and number
      "design 0: rejected by parse: missing_environment (attempt 3)",
    ]);
    // the round's rejections, which the run summary prints as they are (cli.test.ts)
    expect(report.rejected).toEqual({ missing_environment: 1 });
  });

  it("refuses to reuse a run directory without --resume", async () => {
    const store = freshStore();
    store.setMeta("config", {});
    const run = {
      config: config(0),
      outDir: "unused",
      resume: false,
      store,
      model: new ScriptedModel([]),
      sandbox,
      trainer: new NoopTrainer(),
      corpus,
      seeds: [],
      gates: buildGates(config(0).admission),
      admission: testAdmissionResources(),
    };
    await expect(runSelfPlay(run)).rejects.toThrow(/already holds a run; pass --resume/);
  });

  it("never samples an environment of the holdout split for the Solver phase", async () => {
    const store = freshStore();
    // hold out 9 of the 10 seeds: the one left is the only environment training may sample
    const split = ensureHoldout(store, 0.9, 0);
    const [kept] = store.listEnvironments().filter((record) => !split.ids.includes(record.id));
    await round([], store, 0);
    const played = new Set(store.listEpisodes(1).filter((record) => record.role === "solver").map((record) => record.environmentId));
    expect([...played]).toEqual([kept?.id]);
  });
});
