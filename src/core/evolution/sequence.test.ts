import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { loadSeedPackages } from "../../adapters/package-files/index.js";
import { ModelUnavailableError } from "../../spec/index.js";
import { PARENT } from "../../testing/evolution-fixtures.js";
import { ScriptedRoleModel } from "../../testing/scripted-role-model.js";
import { oracleTrace } from "./oracle-trace.js";
import { extractSequence } from "./sequence.js";

// Sequence extraction: the oracle trace runs in the real sandbox; the model is a SCRIPTED FAKE (control flow only).

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 2000 } });
afterAll(() => sandbox.close());
const settings = { maxTokens: 64, temperature: 0 };

describe("oracleTrace", () => {
  it("plays the oracle and writes observations, actions and the return", async () => {
    const seed = loadSeedPackages().find((pkg) => pkg.manifest.name === "number-guess");
    if (seed === undefined) throw new Error("seed number-guess missing");
    const trace = await oracleTrace(seed, sandbox, { maxTurns: 12 });
    expect(trace.episode?.won).toBe(true);
    expect(trace.text).toMatch(/^observation: I picked a secret whole number/);
    expect(trace.text).toMatch(/action: Guess: \d+/);
    expect(trace.text).toMatch(/return: 1$/);
  });

  it("says what failed when the program does not load, without throwing", async () => {
    const trace = await oracleTrace({ ...PARENT, envSource: "class (:\n" }, sandbox);
    expect(trace.episode).toBeNull();
    expect(trace.text).toMatch(/did not load: crash/);
  });
});

describe("extractSequence (scripted fake model)", () => {
  it("uses the model's steps and shows it the code and the trace", async () => {
    const model = new ScriptedRoleModel({ analyst: ['[{"scenario": "quiz", "skill": "recall a fact"}]'] });
    const sequence = await extractSequence(PARENT, "observation: Reply with 42.\naction: 42", model, settings);
    expect(sequence).toEqual({ steps: [{ scenario: "quiz", skill: "recall a fact" }], source: "model" });
    expect(model.promptsOf("analyst")[0]?.[1]?.content).toMatch(/class Answer[\s\S]*action: 42/);
  });

  it("falls back to the manifest for an unusable reply or a model error", async () => {
    const fallback = { steps: [{ scenario: "quiz", skill: "recall" }], source: "manifest" };
    expect(await extractSequence(PARENT, "", new ScriptedRoleModel({ analyst: ["no idea"] }), settings)).toEqual(fallback);
    expect(await extractSequence(PARENT, "", new ScriptedRoleModel({ analyst: [new ModelUnavailableError("down")] }), settings)).toEqual(fallback);
  });
});
