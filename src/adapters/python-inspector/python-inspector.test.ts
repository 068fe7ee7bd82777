import { describe, expect, it } from "vitest";
import { PythonInspector } from "./python-inspector.js";

const inspector = new PythonInspector();

describe("PythonInspector", () => {
  it("outlines classes and functions with their positional arity without running code", async () => {
    const [outline] = await inspector.outline([
      "raise SystemExit('never runs')\nclass Env:\n    def reset(self, seed=0):\n        pass\n    def step(self, *actions):\n        pass\ndef act(env, observation):\n    return ''\n",
    ]);
    expect(outline).toEqual({
      syntaxError: null,
      classes: [{ name: "Env", methods: { reset: { min: 1, max: 2 }, step: { min: 1, max: null } } }],
      functions: { act: { min: 2, max: 2 } },
    });
  });

  it("reports syntax errors with their line, and sources the parser cannot handle, as syntax errors", async () => {
    const [broken, deep] = await inspector.outline(["x = 1\ndef f(:\n", `x = ${"(".repeat(100_000)}${")".repeat(100_000)}\n`]);
    expect(broken?.syntaxError?.line).toBe(2);
    expect(deep?.syntaxError).not.toBeNull();
  });
});
