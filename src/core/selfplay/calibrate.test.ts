import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { samplePackage } from "../../adapters/store/store.contract.js";
import { answersWithHintOnly, ScriptedModel } from "../../testing/scripted-model.js";
import { playWithAndWithoutHint, scoreHintPlays } from "./calibrate.js";

// Control-flow tests with a SCRIPTED FAKE model (answers 42 only with a hint); the sandbox is real.

const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 1500 } });
afterAll(() => sandbox.close());
const settings = { plays: 2, maxTurns: 1, maxTokens: 8, temperature: 0 };

describe("playWithAndWithoutHint", () => {
  it("plays both hint conditions with reproducible seeds and scores them", async () => {
    const model = new ScriptedModel([], answersWithHintOnly);
    const first = await playWithAndWithoutHint(samplePackage(1), model, sandbox, settings, "base");
    const again = await playWithAndWithoutHint(samplePackage(1), model, sandbox, settings, "base");
    expect(first.withoutHint.map((episode) => episode.won)).toEqual([false, false]);
    expect(first.withHint.map((episode) => episode.won)).toEqual([true, true]);
    expect(again.withHint.map((episode) => episode.seed)).toEqual(first.withHint.map((episode) => episode.seed));
    // the hint prompt reached the model
    expect(model.prompts.some((messages) => messages[0]?.content.includes("Hint: Think of the answer"))).toBe(true);
    expect(scoreHintPlays(first)).toEqual({
      plays: 2,
      winRateNoHint: 0,
      winRateHint: 1,
      meanReturnNoHint: 0,
      meanReturnHint: 1,
      regret: 1,
    });
  });

  it("gives the next episode a fresh session after a sandbox failure", async () => {
    const pkg = samplePackage(1);
    const hangsOnSeven = {
      ...pkg,
      envSource: pkg.envSource.replace("    def step(self, action):\n", "    def step(self, action):\n        while action.strip() == '7':\n            pass\n"),
    };
    const plays = await playWithAndWithoutHint(hangsOnSeven, new ScriptedModel([], answersWithHintOnly), sandbox, settings, "base");
    expect(plays.withoutHint.map((episode) => episode.failure?.kind)).toEqual(["timeout", "timeout"]);
    expect(plays.withHint.map((episode) => [episode.won, episode.failure])).toEqual([[true, undefined], [true, undefined]]);
  });

  it("records a program that cannot load as failed episodes, never throws", async () => {
    const broken = { ...samplePackage(1), envSource: "class (:\n" };
    const plays = await playWithAndWithoutHint(broken, new ScriptedModel([], answersWithHintOnly), sandbox, settings, "base");
    expect([...plays.withoutHint, ...plays.withHint].map((episode) => episode.failure?.kind)).toEqual(["crash", "crash", "crash", "crash"]);
  });
});
