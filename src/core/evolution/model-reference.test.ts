import { describe, expect, it } from "vitest";
import { ModelRequestError } from "../../spec/index.js";
import { ScriptedRoleModel } from "../../testing/scripted-role-model.js";
import { frequencyReference } from "./difficulty.js";
import { modelReference, parseProbability } from "./model-reference.js";

// Control flow of the "ask the model" reference with a SCRIPTED FAKE model (ScriptedRoleModel).

describe("parseProbability", () => {
  it("reads fractions and percentages in (0, 1]", () => {
    expect(parseProbability("0.25")).toBe(0.25);
    expect(parseProbability("About 5% of tasks.")).toBeCloseTo(0.05, 12);
    expect(parseProbability(".5")).toBe(0.5);
    expect(parseProbability("0")).toBeNull();
    expect(parseProbability("3")).toBeNull();
    expect(parseProbability("rare")).toBeNull();
  });
});

describe("modelReference", () => {
  it("asks once per distinct label and falls back to frequencies where the model gives no probability", async () => {
    const fallback = frequencyReference([[{ scenario: "maze", skill: "search" }]], []);
    const model = new ScriptedRoleModel({ agent: ["0.5", "I cannot say", new ModelRequestError("boom"), "20%"] });
    const steps = [
      { scenario: "maze", skill: "search" },
      { scenario: "Maze", skill: "Search" },
      { scenario: "cave", skill: "digging" },
    ];
    const reference = await modelReference(model, steps, fallback, { maxTokens: 8, temperature: 0 });
    expect(model.promptsOf("agent")).toHaveLength(4);
    expect(reference.scenarioProbability("maze")).toBe(0.5);
    expect(reference.skillProbability("search", "maze")).toBe(fallback.skillProbability("search", "maze"));
    expect(reference.scenarioProbability("cave")).toBe(fallback.scenarioProbability("cave"));
    expect(reference.skillProbability("digging", "cave")).toBeCloseTo(0.2, 12);
  });
});
