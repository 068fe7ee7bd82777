import { describe, expect, it } from "vitest";
import { PARENT } from "../../testing/evolution-fixtures.js";
import { chooseDirection, editSpan } from "./directions.js";
import { parseRubricReview } from "./reviewer.js";
import { addRubric, parseRubrics, rubricsFor } from "./rubrics.js";
import { manifestSequence, MAX_SEQUENCE_STEPS, parseScenarioSkillSteps } from "./sequence.js";
import { seededRandom } from "../rollout/index.js";

describe("parseScenarioSkillSteps", () => {
  it("reads a fenced or bare array, or an object's steps", () => {
    const steps = [{ scenario: "maze", skill: "search" }];
    expect(parseScenarioSkillSteps(`Sure!\n\`\`\`json\n${JSON.stringify(steps)}\n\`\`\``)).toEqual(steps);
    expect(parseScenarioSkillSteps(`The steps are ${JSON.stringify(steps)} as asked.`)).toEqual(steps);
    expect(parseScenarioSkillSteps(JSON.stringify({ steps }))).toEqual(steps);
  });
  it("drops a scenario: or skill: prefix copied from the prompt's listing (recorded 1.5B plan step)", () => {
    const recorded = '{"summary": "s", "steps": [{"scenario": "scenario: reading the wall around the goal", "skill": "parse a grid"}, {"scenario": "Scenario:  ", "skill": "x"}]}';
    expect(parseScenarioSkillSteps(recorded)).toEqual([{ scenario: "reading the wall around the goal", skill: "parse a grid" }]);
  });
  it("keeps the finished steps of a list cut off by the token limit", () => {
    expect(parseScenarioSkillSteps('```json\n[{"scenario": "maze", "skill": "search"}, {"scenario": "door", "skill": "unlock"}, {"scenario": "ha')).toEqual([
      { scenario: "maze", skill: "search" },
      { scenario: "door", skill: "unlock" },
    ]);
  });

  it("returns null for text without usable steps and caps length and labels", () => {
    expect(parseScenarioSkillSteps("no idea")).toBeNull();
    expect(parseScenarioSkillSteps('[{"scenario": ""}, 4]')).toBeNull();
    const many = Array.from({ length: 50 }, () => ({ scenario: "s".repeat(200), skill: "k" }));
    const parsed = parseScenarioSkillSteps(JSON.stringify(many));
    expect(parsed).toHaveLength(MAX_SEQUENCE_STEPS);
    expect(parsed?.[0]?.scenario).toHaveLength(80);
  });
  it("falls back to one manifest step per skill", () => {
    expect(manifestSequence(PARENT)).toEqual({ steps: [{ scenario: "quiz", skill: "recall" }], source: "manifest" });
  });
});

describe("rubricsFor", () => {
  it("gives a direction its own tagged rubrics, untagged, and every untagged rubric", () => {
    const rubrics = ["LENGTH: new steps build on earlier ones.", "SCENARIO: rarer situations.", "SKILL:rarer skills.", "Every step is concrete.", "LENGTHY plans are fine."];
    expect(rubricsFor(rubrics, "length")).toEqual(["new steps build on earlier ones.", "Every step is concrete.", "LENGTHY plans are fine."]);
    expect(rubricsFor(rubrics, "skill")).toEqual(["rarer skills.", "Every step is concrete.", "LENGTHY plans are fine."]);
  });
});

describe("parseRubricReview", () => {
  it("decides from per-rubric checks: any check that does not hold rejects with its reason, even in a reply cut short", () => {
    const checks = (holds: boolean[]) => `{"checks": [${holds.map((value, index) => `{"rubric": ${index + 1}, "why": "reason \\"${index + 1}\\"", "holds": ${value}}`).join(", ")}]}`;
    expect(parseRubricReview(checks([true, true, true]))).toEqual({ passed: true, feedback: "" });
    expect(parseRubricReview(checks([true, false, false]))).toEqual({ passed: false, feedback: 'rubric 2: reason "2" rubric 3: reason "3"' });
    const cut = (text: string) => text.slice(0, text.indexOf('{"rubric": 2') + 16);
    expect(parseRubricReview(cut(checks([false, true])))).toEqual({ passed: false, feedback: 'rubric 1: reason "1"' });
    // a cut reply whose finished checks all hold has no verdict
    expect(parseRubricReview(cut(checks([true, true])))).toBeNull();
  });

  it("reads JSON verdicts and leading PASS/REJECT words", () => {
    expect(parseRubricReview('{"verdict": "pass"}')).toEqual({ passed: true, feedback: "" });
    expect(parseRubricReview('```json\n{"verdict": "REJECT", "feedback": "too easy"}\n```')).toEqual({ passed: false, feedback: "too easy" });
    expect(parseRubricReview("REJECT: the oracle reads nothing")).toEqual({ passed: false, feedback: "the oracle reads nothing" });
    expect(parseRubricReview("Pass.")).toEqual({ passed: true, feedback: "" });
    expect(parseRubricReview("It looks fine to me")).toBeNull();
  });
});

describe("editSpan / chooseDirection", () => {
  it("keeps spans inside the sequence with the effort's size", () => {
    const random = seededRandom(7);
    for (let trial = 0; trial < 200; trial += 1) {
      const length = 1 + (trial % 9);
      const low = editSpan("low", length, random);
      const high = editSpan("high", length, random);
      expect(low.end - low.start).toBe(1);
      expect(low.start).toBeGreaterThanOrEqual(0);
      expect(low.end).toBeLessThanOrEqual(length);
      expect(high.end - high.start).toBeGreaterThanOrEqual(Math.min(2, length));
      expect(high.end - high.start).toBeLessThanOrEqual(Math.min(length, Math.ceil(length / 2) + 1));
      expect(high.end).toBeLessThanOrEqual(length);
    }
    expect(editSpan("max", 5, random)).toEqual({ start: 0, end: 5 });
    expect(editSpan("low", 0, random)).toEqual({ start: 0, end: 0 });
  });

  it("returns a fixed direction and never repeats the previous one under mixed", () => {
    const random = seededRandom(3);
    expect(chooseDirection("scenario", "scenario", random)).toBe("scenario");
    const seen = new Set<string>();
    let previous = chooseDirection("mixed", null, random);
    for (let generation = 0; generation < 60; generation += 1) {
      const next = chooseDirection("mixed", previous, random);
      expect(next).not.toBe(previous);
      seen.add(next);
      previous = next;
    }
    expect([...seen].sort()).toEqual(["length", "scenario", "skill"]);
  });
});

describe("rubrics", () => {
  const text = "# Rubrics\nintro\n\n## Plan\n\n- one\n- two\n  continued\n\n## Child\n* three\n\n## Notes\n- not a rubric\n";
  it("parses bullets by section with continuation lines", () => {
    expect(parseRubrics(text)).toEqual({ plan: ["one", "two continued"], child: ["three"] });
  });
  it("adds a rubric at the end of its section, or a new section", () => {
    const added = addRubric(text, "plan", "four\nlines", "learned from lin-a g1");
    expect(parseRubrics(added)).toEqual({ plan: ["one", "two continued", "four lines"], child: ["three"] });
    expect(added).toMatch(/continued\n- four lines <!-- learned from lin-a g1 -->\n\n## Child/);
    expect(parseRubrics(addRubric("# Empty\n", "child", "five")).child).toEqual(["five"]);
  });
});
