import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { EnvManifestSchema, type Provenance } from "../../spec/index.js";
import { SECRET_42 } from "../../testing/scripted-model.js";
import { parseDesign } from "./parse-design.js";

// Property tests (issue 17): the completion parser never throws on random or adversarial input;
// it always returns a package with a valid manifest or a typed `parse` reject verdict.

const provenance: Provenance = {
  origin: "designer",
  parentId: null,
  generation: 0,
  designerModel: "property-test",
  promptHash: null,
  corpusDocumentIds: [],
  createdAt: "2026-12-01T00:00:00.000Z",
};
const REASONS = ["unparseable", "missing_environment", "missing_oracle", "invalid_manifest"];

/** Pieces a Designer completion is made of, whole and broken, to splice at random. */
const FRAGMENTS = [
  "```python\n",
  "```json\n",
  "```\n",
  "```",
  "\n",
  "# env.py\n",
  "# oracle.py\n",
  SECRET_42.env,
  SECRET_42.oracle,
  JSON.stringify(SECRET_42.manifest),
  '{"title": "x", "description": "y", "hint": "z", "maxTurns": "NaN"}',
  '{"title": "", "rewardRange": [1, 0], "passThreshold": 5, "skills": {}}',
  '{"title": "t", "description": "d", "hint": "h", "maxTurns": 1e309, "difficulty": {"a": [1]}}',
  "{\"__proto__\": {\"polluted\": true}, \"constructor\": 1}",
  "class Env:\n    def reset(self, seed):\n        return ''\n    def step(self, action):\n        return ('', 0.0, True, False, {})\n",
  "def act(env, observation):\n    return ''\n",
  "def generate(rng):\n    return 1\n\ndef render(instance):\n    return str(instance)\n\ndef solve(instance):\n    return instance\n",
  'NAME = "a"\nTITLE = """unterminated\nHINT = 3\nMAX_TURNS = -1\nSKILLS = [[[[[\n',
  "MAX_TURNS = 10**10**10\n",
  "\u0000\u001b[2J\u202e\ud800",
  "x".repeat(5000),
];

const completions = fc.oneof(
  fc.string({ maxLength: 400 }),
  fc.string({ unit: "grapheme", maxLength: 200 }),
  fc.array(fc.constantFrom(...FRAGMENTS), { maxLength: 12 }).map((parts) => parts.join("")),
  fc.array(fc.oneof(fc.constantFrom(...FRAGMENTS), fc.string({ maxLength: 40 })), { maxLength: 12 }).map((parts) => parts.join("")),
);

describe("parseDesign on random and adversarial completions", () => {
  it("never throws; returns a valid package or a typed parse verdict", () => {
    fc.assert(
      fc.property(completions, (completion) => {
        const result = parseDesign(completion, provenance);
        if (result.ok) {
          expect(EnvManifestSchema.safeParse(result.package.manifest).success).toBe(true);
          expect(typeof result.package.envSource).toBe("string");
          expect(typeof result.package.oracleSource).toBe("string");
        } else {
          expect(result.verdict.status).toBe("reject");
          expect(result.verdict.gate).toBe("parse");
          expect(REASONS).toContain(result.verdict.reason);
          expect(typeof result.verdict.message).toBe("string");
        }
      }),
      { numRuns: 400, seed: 17 },
    );
  });

  it("reads a well-formed completion whatever text surrounds it", () => {
    const design = ["```json", JSON.stringify(SECRET_42.manifest), "```", "```python", SECRET_42.env, "```", "```python", SECRET_42.oracle, "```"].join("\n");
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }).filter((text) => !text.includes("`")), fc.string({ maxLength: 200 }).filter((text) => !text.includes("`")), (before, after) => {
        const result = parseDesign(`${before}\n${design}\n${after}`, provenance);
        expect(result.ok).toBe(true);
      }),
      { numRuns: 100, seed: 17 },
    );
  });
});
