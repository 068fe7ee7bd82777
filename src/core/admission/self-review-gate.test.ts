import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { readRubric } from "../../adapters/corpus/index.js";
import { openModel } from "../../adapters/llm/index.js";
import { PythonInspector } from "../../adapters/python-inspector/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { loadSeedPackages } from "../../adapters/package-files/index.js";
import { fromPackageDocument } from "../../adapters/package-files/index.js";
import type { ChatMessage, GenerateOptions, LanguageModel } from "../../spec/index.js";
import { SECRET_42 } from "../../testing/scripted-model.js";
import type { AdmissionContext } from "./gate.js";
import { expandScaffold } from "../scaffold/index.js";
import { parseReview, reviewMessages, selfReviewGate, REVIEW_GRAMMAR } from "./self-review-gate.js";

const candidate = loadSeedPackages().find((pkg) => pkg.manifest.name === "longest-increasing-subsequence")!;
const rubric = readRubric(null);
// a tiny package keeps the real model's prompt short
const small = fromPackageDocument({
  manifest: { schemaVersion: 1, interaction: "single-turn", rewardRange: [0, 1], passThreshold: 1, difficulty: {}, ...SECRET_42.manifest, provenance: { origin: "designer", createdAt: "2026-11-29T00:00:00.000Z" } },
  files: { "env.py": SECRET_42.env, "oracle.py": SECRET_42.oracle },
});

function context(model: LanguageModel, admission: object = {}): AdmissionContext {
  return { sandbox: {} as BwrapSandbox, inspector: new PythonInspector(), settings: parseConfig({ admission }).admission, model, rubric };
}

/** A SCRIPTED FAKE reviewer for control-flow tests only: replies in turn, recording prompts and seeds. */
function scriptedReviewer(replies: readonly string[]) {
  const seen: { messages: readonly ChatMessage[]; options: GenerateOptions }[] = [];
  const model: LanguageModel = {
    id: "scripted-reviewer",
    async generate(messages, options) {
      seen.push({ messages, options });
      return { text: replies[seen.length - 1] ?? "", finishReason: "stop" };
    },
    async close() {},
  };
  return { model, seen };
}

describe("parseReview", () => {
  it("reads the last verdict line, case-insensitively", () => {
    expect(parseReview("Looks fine.\nVERDICT: ACCEPT")).toBe("accept");
    expect(parseReview("verdict: accept ... on reflection **Verdict: REJECT**")).toBe("reject");
    expect(parseReview("I think it is good")).toBe("unparseable");
  });

  it("reads a last line that is the bare word (a recorded Qwen2.5-Coder-0.5B review was exactly \"ACCEPT\")", () => {
    expect(parseReview("ACCEPT")).toBe("accept");
    expect(parseReview("1. The hint gives the answer.\n**REJECT**")).toBe("reject");
    expect(parseReview("Reject it if any criterion fails.\nThe task looks fine")).toBe("unparseable");
    expect(parseReview("I would not accept this")).toBe("unparseable");
  });
});

describe("reviewMessages", () => {
  const authored = `NAME = "parity"\nTITLE = "Parity"\nDESCRIPTION = "Say whether a number is even."\nHINT = "Look at the last digit."\nSKILLS = ["arithmetic"]\n\ndef generate(rng):\n    return rng.randint(1, 999)\n\ndef render(instance):\n    return f"Is {instance} even? Reply yes or no."\n\ndef solve(instance):\n    return "yes" if instance % 2 == 0 else "no"\n`;
  const scaffolded = fromPackageDocument({
    manifest: { schemaVersion: 1, interaction: "single-turn", rewardRange: [0, 1], passThreshold: 1, difficulty: {}, name: "parity", title: "Parity", description: "Say whether a number is even.", maxTurns: 1, hint: "Look at the last digit.", skills: ["arithmetic"], scenario: "parity", provenance: { origin: "designer", createdAt: "2026-12-01T00:00:00.000Z" } },
    files: { "env.py": expandScaffold(authored).envSource, "oracle.py": expandScaffold(authored).oracleSource },
  });

  it("shows a scaffolded package as the Designer's functions and what the scaffold does, not the template", () => {
    const user = reviewMessages(scaffolded, rubric)[1]?.content ?? "";
    expect(user).toContain("def solve(instance):");
    expect(user).toContain("a reply earns reward 1 when it equals solve(instance)");
    expect(user).not.toContain("envforge scaffold: everything below");
    expect(user).not.toContain("def act(");
  });

  it("shows a free-form package whole", () => {
    const user = reviewMessages(candidate, rubric)[1]?.content ?? "";
    expect(user).toContain("class LongestIncreasingSubsequenceEnv");
    expect(user).toContain("oracle.py:");
  });
});

describe("self-review gate (scripted fake reviewer: control flow only)", () => {
  it("asks K = 3 times with different seeds and the rubric, and any reject rejects", async () => {
    const { model, seen } = scriptedReviewer(["VERDICT: ACCEPT", "2. reward mismatch\nVERDICT: REJECT", "VERDICT: ACCEPT"]);
    const verdict = await selfReviewGate().check(candidate, context(model));
    expect(verdict).toMatchObject({ status: "reject", gate: "self-review", reason: "review_rejected", message: "1 of 3 reviews rejected the environment" });
    expect(seen.map((call) => call.options.seed)).toEqual([0, 1, 2]);
    expect(seen[0]?.messages[0]?.content).toContain("Solvable from what the agent sees");
    expect(seen[0]?.messages[1]?.content).toContain("class LongestIncreasingSubsequenceEnv");
    expect(seen[0]?.messages[1]?.content).not.toContain("provenance");
  });

  it("passes when every parseable review accepts, and rejects when none is parseable", async () => {
    expect(await selfReviewGate().check(candidate, context(scriptedReviewer(["VERDICT: ACCEPT", "hmm", "Verdict: accept"]).model))).toMatchObject({ status: "pass" });
    expect(await selfReviewGate().check(candidate, context(scriptedReviewer(["hmm", "", "no idea"]).model))).toMatchObject({ status: "reject", reason: "review_unparseable" });
  });

  it("rejects only at admission.reviewRejections rejecting reviews when that is above 1", async () => {
    const replies = ["VERDICT: ACCEPT", "1. REJECT\nVERDICT: REJECT", "VERDICT: ACCEPT"];
    expect(await selfReviewGate().check(candidate, context(scriptedReviewer(replies).model, { reviewRejections: 2 }))).toMatchObject({ status: "pass" });
    expect(await selfReviewGate().check(candidate, context(scriptedReviewer([replies[1]!, replies[1]!, replies[0]!]).model, { reviewRejections: 2 }))).toMatchObject({
      status: "reject",
      reason: "review_rejected",
      message: "2 of 3 reviews rejected the environment",
    });
  });

    it("asks for the review grammar unless admission.reviewGrammar is off", async () => {
    const on = scriptedReviewer(["VERDICT: ACCEPT"]);
    await selfReviewGate().check(candidate, context(on.model, { reviews: 1 }));
    expect(on.seen[0]?.options.grammar).toBe(REVIEW_GRAMMAR);
    const off = scriptedReviewer(["VERDICT: ACCEPT"]);
    await selfReviewGate().check(candidate, context(off.model, { reviews: 1, reviewGrammar: false }));
    expect(off.seen[0]?.options.grammar).toBeUndefined();
  });

  it("rejects without a model", async () => {
    const { model: _model, ...withoutModel } = context(scriptedReviewer([]).model);
    expect(await selfReviewGate().check(candidate, withoutModel)).toMatchObject({ status: "reject", reason: "model_missing" });
  });
});

describe("self-review gate with the real embedded model", () => {
  it("gets one review under the review grammar, which always ends in a verdict line, with the reply as evidence", async () => {
    const model = await openModel("embedded");
    try {
      const verdict = await selfReviewGate().check(small, context(model, { reviews: 1, reviewMaxTokens: 256, reviewTemperature: 0 }));
      expect(verdict.gate).toBe("self-review");
      const reviews = (verdict.evidence as { reviews: { decision: string; text: string }[] }).reviews;
      expect(reviews).toHaveLength(1);
      expect(reviews[0]?.text.length).toBeGreaterThan(0);
      // the decision follows the reply: a verdict line decides, otherwise the gate rejects as unreviewable
      expect(reviews[0]?.text).toMatch(/(^|\n)VERDICT: (ACCEPT|REJECT)$/);
      const expected = parseReview(reviews[0]?.text ?? "");
      expect(verdict.status === "pass" ? "accept" : verdict.reason).toBe(expected === "accept" ? "accept" : expected === "reject" ? "review_rejected" : "review_unparseable");
    } finally {
      await model.close();
    }
  }, 300_000);
});
