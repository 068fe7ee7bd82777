import { describe, expect, it } from "vitest";
import { parseConfig } from "../../config/index.js";
import { pass, reject } from "../../spec/index.js";
import {
  DEFAULT_DESIGNER_REWARD_SETTINGS,
  classifyDesignFailure,
  designerRewardSettingsFromConfig,
  scoreDesign,
  type DesignFailureClass,
  type DesignerRewardMode,
} from "./designer-reward-modes.js";
import { designerReward } from "./designer-reward.js";

const settings = (mode: DesignerRewardMode) => ({ ...DEFAULT_DESIGNER_REWARD_SETTINGS, mode });
const admitted = (mode: DesignerRewardMode, regret: number, winRateNoHint: number) =>
  scoreDesign({ kind: "admitted", calibration: { regret, winRateNoHint, skills: ["parsing"] } }, settings(mode)).reward;
const failed = (mode: DesignerRewardMode, failure: DesignFailureClass) => scoreDesign({ kind: "failed", failure }, settings(mode)).reward;

describe("regret-blend golden table (SPADE: 0.4·min(regret/0.15, 1) + 0.6·anchor(w))", () => {
  // [regret, no-hint win rate w, expected]
  it.each([
    [0, 0.15, 0], //          norm 0;            w < 0.4: 1 − (0.4−0.15)/0.25 = 0          → 0
    [0, 0.4, 0.6], //         norm 0;            w = 0.4 flat-top edge: anchor 1           → 0.6·1 = 0.6
    [0, 0.6, 0.6], //         norm 0;            w = 0.6 flat-top edge: anchor 1           → 0.6
    [0, 0.85, 0], //          norm 0;            w > 0.6: 1 − (0.85−0.6)/0.25 = 0          → 0
    [0.15, 0.5, 1], //        norm min(0.15/0.15,1)=1; anchor 1                            → 0.4 + 0.6 = 1
    [0.3, 0.5, 1], //         regret above scale: norm min(2, 1) = 1; anchor 1             → 1
    [-0.2, 0.5, 0.6], //      negative regret floored at 0: norm 0; anchor 1               → 0.6
    [0.075, 0.275, 0.5], //   norm 0.5; anchor 1 − 0.125/0.25 = 0.5                        → 0.2 + 0.3 = 0.5
    [0.03, 0.7, 0.44], //     norm 0.2; anchor 1 − 0.1/0.25 = 0.6                          → 0.08 + 0.36 = 0.44
    [0.06, 0.1, 0.16], //     norm 0.4; anchor max(0, 1 − 0.3/0.25) = 0                    → 0.16
    [0.12, 1, 0.32], //       norm 0.8; anchor max(0, 1 − 0.4/0.25) = 0                    → 0.32
    [0.15, 0.39, 0.976], //   norm 1; anchor 1 − 0.01/0.25 = 0.96                          → 0.4 + 0.576 = 0.976
    [0, 0.86, 0], //          norm 0; anchor max(0, 1 − 0.26/0.25) = 0 (past the 0.85 edge) → 0
    [0.15, 0.15, 0.4], //     norm 1; anchor 0 at the 0.15 edge                            → 0.4
  ])("regret %f, w %f → %f", (regret, winRate, expected) => {
    expect(admitted("regret-blend", regret, winRate)).toBeCloseTo(expected, 12);
    expect(designerReward(regret, winRate)).toBeCloseTo(expected, 12);
  });
});

describe("admission golden table (co-evolution: −1 broken, −0.25 outside band, +1 admitted)", () => {
  it.each([
    ["failed unparseable", () => failed("admission", "unparseable"), -1], //      broken, whatever the class
    ["failed review", () => failed("admission", "review_reject"), -1], //         broken
    ["failed mechanical", () => failed("admission", "mechanical_reject"), -1], // broken
    ["p = 0", () => admitted("admission", 0.5, 0), -0.25], //                     band is 0 < p < 1; 0 is outside
    ["p = 1", () => admitted("admission", 0, 1), -0.25], //                       1 is outside
    ["p = 0.5", () => admitted("admission", 0, 0.5), 1], //                       inside
    ["p = 0.125", () => admitted("admission", 0, 0.125), 1], //                   inside (1 of 8 plays)
  ] as const)("%s", (_name, compute, expected) => {
    expect(compute()).toBe(expected);
  });
});

describe("learnability golden table (Absolute Zero: 1 − p when 0 < p < 1, else 0)", () => {
  it.each([
    [0, 0], //      p = 0: never solved → 0
    [1, 0], //      p = 1: always solved → 0
    [0.25, 0.75], // 1 − 0.25 = 0.75
    [0.875, 0.125], // 1 − 0.875 = 0.125
  ])("p %f → %f", (p, expected) => {
    expect(admitted("learnability", 0.1, p)).toBeCloseTo(expected, 12);
  });
});

describe("uncertainty golden table (R-Zero: 1 − 2·|p − 0.5|)", () => {
  it.each([
    [0.5, 1], //    1 − 2·0 = 1
    [0, 0], //      1 − 2·0.5 = 0
    [1, 0], //      1 − 2·0.5 = 0
    [0.25, 0.5], // 1 − 2·0.25 = 0.5
    [0.85, 0.3], // 1 − 2·0.35 = 0.3
  ])("p %f → %f", (p, expected) => {
    expect(admitted("uncertainty", 0.1, p)).toBeCloseTo(expected, 12);
  });
});

describe("failure penalties per class (every mode but admission)", () => {
  it.each([
    ["regret-blend", "unparseable", -1], //              reward.unparseablePenalty
    ["regret-blend", "mechanical_reject", -0.5], //      reward.rejectedPenalty
    ["regret-blend", "review_reject", -0.5], //          reward.reviewRejectedPenalty
    ["learnability", "unparseable", -1], //              same table in every mode
    ["learning-potential", "review_reject", -0.5], //    and the state stays as it was
  ] as const)("%s / %s → %f", (mode, failure, expected) => {
    expect(failed(mode, failure)).toBe(expected);
  });

  it("reads every penalty and constant from the reward config block", () => {
    const config = parseConfig({ reward: { mode: "admission", reviewRejectedPenalty: -0.75, admissionOutsideBand: -0.5 } });
    const fromConfig = designerRewardSettingsFromConfig(config.reward);
    expect(fromConfig.mode).toBe("admission");
    expect(fromConfig.failurePenalties).toEqual({ unparseable: -1, mechanicalReject: -0.5, reviewReject: -0.75 });
    expect(fromConfig.admission).toEqual({ broken: -1, outsideBand: -0.5, admitted: 1, bandLow: 0, bandHigh: 1 });
    expect(designerRewardSettingsFromConfig(parseConfig({}).reward)).toEqual(DEFAULT_DESIGNER_REWARD_SETTINGS);
  });
});

describe("classifyDesignFailure", () => {
  it("maps the deciding verdict's gate to a failure class", () => {
    expect(classifyDesignFailure([reject("parse", "unparseable", "no block")])).toBe("unparseable");
    expect(classifyDesignFailure([pass("parse"), reject("static", "syntax_error", "os")])).toBe("mechanical_reject");
    expect(classifyDesignFailure([pass("parse"), reject("oracle", "oracle_failed", "0")])).toBe("mechanical_reject");
    expect(classifyDesignFailure([pass("parse"), reject("novelty", "text_near_duplicate", "seen")])).toBe("review_reject");
    expect(classifyDesignFailure([pass("parse"), reject("self-review", "review_rejected", "hint")])).toBe("review_reject");
    expect(classifyDesignFailure([reject("model", "model_error", "down")])).toBeNull();
    expect(classifyDesignFailure([pass("parse"), pass("oracle")])).toBeNull();
    expect(classifyDesignFailure([])).toBeNull();
  });
});
