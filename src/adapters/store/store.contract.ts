import { describe, expect, it } from "vitest";
import type {
  EnvironmentRecord,
  EpisodeRecord,
  EvolutionAttemptRecord,
  GenerationRecord,
  LineageRecord,
  RoundReport,
  Store,
} from "../../spec/index.js";
import { packageId, type EnvPackage } from "../../spec/index.js";

/** A small valid package; `variant` changes its code and therefore its id. */
export function samplePackage(variant = 0): EnvPackage {
  return {
    manifest: {
      schemaVersion: 1,
      name: `sample-${variant}`,
      title: "Sample",
      description: "Answer 42.",
      interaction: "single-turn",
      maxTurns: 1,
      rewardRange: [0, 1],
      passThreshold: 1,
      hint: "Think of the answer to everything.",
      skills: ["recall"],
      scenario: "quiz",
      difficulty: {},
      provenance: {
        origin: "designer",
        parentId: null,
        generation: 0,
        designerModel: "test",
        promptHash: "p",
        corpusDocumentIds: ["doc-1"],
        createdAt: "2026-11-29T00:00:00.000Z",
      },
    },
    envSource: `class E:\n    def reset(self, seed):\n        return 'q${variant}'\n    def step(self, action):\n        return ('', float(action.strip() == '42'), True, False, {})\n`,
    oracleSource: "def act(env, observation):\n    return '42'\n",
  };
}

function environment(variant: number, round: number | null = 1): EnvironmentRecord {
  const pkg = samplePackage(variant);
  return { id: packageId(pkg), package: pkg, round, scores: null };
}

function episode(environmentId: string, role: "solver" | "calibration", seed: number): EpisodeRecord {
  return {
    round: 1,
    environmentId,
    role,
    hint: seed % 2 === 0,
    policyVersion: 0,
    episode: { seed, initialObservation: "q", turns: [{ action: "42", observation: "", reward: 1 }], return: 1, won: true, terminated: true, truncated: false },
  };
}

const report: RoundReport = {
  round: 1,
  proposed: 1,
  admitted: 1,
  rejected: {},
  solver: { episodes: 2, winRateNoHint: 0.5, winRateHint: 1 },
  designer: { meanReward: 0.3 },
  trainer: { name: "noop", policyVersion: 0, datums: 0 },
  diagnostics: { step: 1 },
  errors: {},
  seconds: 1,
};

const difficulty = { length: 1, scenarioSurprise: 0.5, skillSurprise: 0.25, total: 1.75 };
const sequence = { steps: [{ scenario: "quiz", skill: "recall" }], source: "manifest" as const };

function lineage(variant: number): LineageRecord {
  const seed = environment(variant, null);
  return { id: `lin-sample-${variant}`, seedId: seed.id, seedName: `sample-${variant}`, seed: seed.package, sequence, difficulty, createdAt: "2026-11-29T00:00:00.000Z" };
}

function generation(lineageId: string, index: number, child: EnvironmentRecord, parentId: string): GenerationRecord {
  return {
    lineageId,
    generation: index,
    environmentId: child.id,
    parentId,
    direction: "length",
    effort: "low",
    plan: { summary: "add a step", steps: [...sequence.steps, { scenario: "quiz", skill: "checking" }] },
    patch: "--- a/env.py\n+++ b/env.py\n",
    validations: [{ status: "pass", gate: "oracle" }],
    admission: [{ status: "pass", gate: "static" }],
    sequence,
    difficulty,
    createdAt: "2026-11-29T00:00:00.000Z",
  };
}

function attempt(lineageId: string, index: number, outcome: EvolutionAttemptRecord["outcome"]): EvolutionAttemptRecord {
  return {
    lineageId,
    generation: 1,
    attempt: index,
    direction: "skill",
    effort: "high",
    outcome,
    planning: [{ completion: "plan", plan: null, review: { status: "reject", gate: "plan-review", reason: "unparseable", message: "no plan" } }],
    modification: [],
    admission: [],
    seconds: 2,
  };
}

/** The contract every {@link Store} implementation must honour. */
export function storeContract(name: string, create: () => Store): void {
  describe(`Store contract: ${name}`, () => {
    it("round-trips metadata", () => {
      const store = create();
      store.setMeta("config", { rounds: 2 });
      store.setMeta("config", { rounds: 3 });
      expect(store.getMeta("config")).toEqual({ rounds: 3 });
      expect(store.getMeta("missing")).toBeUndefined();
      expect(store.claimMeta("owner", "first")).toBe(true);
      expect(store.claimMeta("owner", "second")).toBe(false);
      expect(store.getMeta("owner")).toBe("first");
      store.close();
    });

    it("stores an environment once by content id", () => {
      const store = create();
      expect(store.addEnvironment(environment(1))).toBe(true);
      expect(store.addEnvironment(environment(1))).toBe(false);
      expect(store.addEnvironment(environment(2))).toBe(true);
      const listed = store.listEnvironments();
      expect(listed.map((record) => record.package.manifest.name)).toEqual(["sample-1", "sample-2"]);
      expect(listed[0]).toEqual(environment(1));
      store.close();
    });

    it("stores a design with its environment and episodes atomically, and never twice", () => {
      const store = create();
      const env = environment(3);
      const design = {
        round: 1,
        index: 0,
        promptHash: "p",
        corpusDocumentIds: ["doc-1"],
        completion: "text",
        verdicts: [{ status: "pass" as const, gate: "oracle" }],
        environmentId: env.id,
        reward: 0.6,
      };
      store.beginRound(1);
      store.saveDesign(design, { environment: env, episodes: [episode(env.id, "calibration", 0), episode(env.id, "calibration", 1)] });
      store.saveDesign({ ...design, reward: 99 }, { environment: env, episodes: [episode(env.id, "calibration", 5)] });
      expect(store.listDesigns(1)).toEqual([design]);
      expect(store.listEnvironments()).toHaveLength(1);
      expect(store.listEpisodes(1).map((record) => record.episode.seed)).toEqual([0, 1]);
      store.close();
    });

    it("keeps a design's policy version and sampled tokens, and an episode's prompt tokens", () => {
      const store = create();
      const design = {
        round: 2,
        index: 1,
        promptHash: "p",
        corpusDocumentIds: [],
        completion: "text",
        verdicts: [{ status: "pass" as const, gate: "parse" }],
        environmentId: null,
        reward: -1,
        policyVersion: 3,
        tokens: { prompt: [2, 10, 11], completion: [12, 13], logprobs: [-0.25, -1.5] },
      };
      store.beginRound(2);
      store.saveDesign(design);
      expect(store.listDesigns(2)).toEqual([design]);
      const env = environment(5);
      store.addEnvironment(env);
      const played = episode(env.id, "solver", 0);
      const withTokens = { ...played, episode: { ...played.episode, turns: [{ ...played.episode.turns[0]!, promptTokens: [2, 7], actionTokens: [9], actionLogprobs: [-0.5] }] } };
      store.beginRound(1);
      store.saveSolverPhase(1, [withTokens]);
      expect(store.listEpisodes(1)).toEqual([withTokens]);
      store.close();
    });

    it("replaces a round's solver phase and tracks round status", () => {
      const store = create();
      const env = environment(4);
      store.addEnvironment(env);
      expect(store.beginRound(1)).toEqual({ round: 1, status: "running", solverPhaseDone: false, report: null });
      store.saveSolverPhase(1, [episode(env.id, "solver", 0)]);
      store.saveSolverPhase(1, [episode(env.id, "solver", 1), episode(env.id, "solver", 2)]);
      expect(store.listEpisodes(1).map((record) => record.episode.seed)).toEqual([1, 2]);
      expect(store.beginRound(1).solverPhaseDone).toBe(true);
      store.finishRound(1, report);
      expect(store.listRounds()).toEqual([{ round: 1, status: "done", solverPhaseDone: true, report }]);
      store.close();
    });

    it("stores lineages once by id, oldest first", () => {
      const store = create();
      expect(store.addLineage(lineage(1))).toBe(true);
      expect(store.addLineage({ ...lineage(1), seedName: "changed" })).toBe(false);
      expect(store.addLineage(lineage(2))).toBe(true);
      expect(store.listLineages()).toEqual([lineage(1), lineage(2)]);
      store.close();
    });

    it("stores a generation with its environment atomically, in order, and never twice", () => {
      const store = create();
      const root = lineage(1);
      store.addLineage(root);
      const first = environment(11);
      const second = environment(12);
      expect(store.saveGeneration(generation(root.id, 2, second, first.id), second)).toBe(true);
      expect(store.saveGeneration(generation(root.id, 1, first, root.seedId), first)).toBe(true);
      expect(store.saveGeneration({ ...generation(root.id, 1, environment(13), root.seedId), patch: "other" }, environment(13))).toBe(false);
      expect(store.listGenerations(root.id)).toEqual([generation(root.id, 1, first, root.seedId), generation(root.id, 2, second, first.id)]);
      expect(store.listGenerations("lin-other")).toEqual([]);
      // the refused generation's environment was not stored either
      expect(store.listEnvironments().map((record) => record.id)).toEqual([second.id, first.id]);
      store.close();
    });

    it("stores evolution attempts once per (lineage, generation, attempt), ordered", () => {
      const store = create();
      store.saveEvolutionAttempt(attempt("lin-a", 1, "validation_failed"));
      store.saveEvolutionAttempt(attempt("lin-a", 0, "plan_rejected"));
      store.saveEvolutionAttempt(attempt("lin-a", 0, "validated"));
      store.saveEvolutionAttempt(attempt("lin-b", 0, "model_error"));
      expect(store.listEvolutionAttempts("lin-a").map((record) => [record.attempt, record.outcome])).toEqual([[0, "plan_rejected"], [1, "validation_failed"]]);
      expect(store.listEvolutionAttempts("lin-a")[0]).toEqual(attempt("lin-a", 0, "plan_rejected"));
      store.close();
    });

    it("stores frontier probes once per (lineage, round)", () => {
      const store = create();
      const probe = { lineageId: "lin-a", generation: 0, round: 1, rollouts: 8, wins: 6, released: true };
      store.saveFrontierProbe(probe);
      store.saveFrontierProbe({ ...probe, wins: 0, released: false });
      store.saveFrontierProbe({ ...probe, round: 2, generation: 1, wins: 3, released: false });
      expect(store.listFrontierProbes()).toEqual([probe, { ...probe, round: 2, generation: 1, wins: 3, released: false }]);
      store.close();
    });
  });
}
