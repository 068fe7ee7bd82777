import { readFileSync } from "node:fs";
import { afterAll, describe, expect, it } from "vitest";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import { loadSeedPackages } from "../../adapters/package-files/index.js";
import { parseConfig } from "../../config/index.js";
import type { Provenance } from "../../spec/index.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { admit, buildGates } from "../admission/index.js";
import { parseDesign } from "./parse-design.js";

// Real completions of Qwen2.5-Coder-1.5B-Instruct (fixtures/designer-completions, recorded by
// `envforge bench designer --out`): what the parser and the mechanical gates make of them.

interface Recorded {
  readonly design: number;
  readonly attempt: number;
  readonly completion: string;
}

const recorded: Recorded[] = readFileSync(new URL("../../../fixtures/designer-completions/qwen2.5-coder-1.5b.jsonl", import.meta.url), "utf8")
  .trim()
  .split("\n")
  .map((line) => JSON.parse(line) as Recorded);

const provenance: Provenance = { origin: "designer", parentId: null, generation: 0, designerModel: "embedded:qwen2.5-coder-1.5b", promptHash: null, corpusDocumentIds: [], createdAt: "2026-12-01T00:00:00.000Z" };
const sandbox = new BwrapSandbox();
afterAll(() => sandbox.close());

/** `admitted`, or `gate: reason` of the first reject, of one recorded completion. */
async function outcome(completion: string): Promise<string> {
  const parsed = parseDesign(completion, provenance);
  if (!parsed.ok) return `parse: ${parsed.verdict.status === "reject" ? parsed.verdict.reason : ""}`;
  const config = parseConfig({ admission: { skip: ["self-review", "calibration"] } });
  const result = await admit(parsed.package, buildGates(config.admission), { ...testAdmissionResources(), sandbox, settings: config.admission, pool: loadSeedPackages() });
  const failed = result.verdicts.find((verdict) => verdict.status === "reject");
  return failed?.status === "reject" ? `${failed.gate}: ${failed.reason}` : "admitted";
}

describe("recorded Qwen2.5-Coder-1.5B designs through the parser and the mechanical gates", () => {
  it("parses every recorded scaffolded completion into a package named from its NAME constant", () => {
    const names = recorded.slice(0, -1).map((entry) => {
      const parsed = parseDesign(entry.completion, provenance);
      return parsed.ok ? parsed.package.manifest.name : `unparsed ${entry.design}/${entry.attempt}`;
    });
    expect(names).toContain("number-game");
    expect(names).toContain("rock-paper-scissors");
    expect(names.filter((name) => name.startsWith("unparsed"))).toEqual([]);
  });

  it("gives each recorded design the verdict the current template and gates give it", async () => {
    const outcomes: string[] = [];
    for (const entry of recorded) outcomes.push(`${entry.design}/${entry.attempt} ${await outcome(entry.completion)}`);
    expect(outcomes).toEqual(EXPECTED);
  }, 300_000);

  it("binds math for the refraction design that used it without importing it, so the error left is its own (n2)", async () => {
    const refraction = recorded.find((entry) => entry.design === 2 && entry.attempt === 0) as Recorded;
    const parsed = parseDesign(refraction.completion, provenance);
    if (!parsed.ok) throw new Error("the recorded refraction design no longer parses");
    const opened = await sandbox.open(parsed.package);
    if (opened.kind !== "ok") throw new Error(opened.message);
    const reset = await opened.value.reset(0);
    await opened.value.close();
    expect(reset.kind).toBe("crash");
    expect(reset.kind === "ok" ? "" : reset.message).toMatch(/NameError: name 'n2' is not defined/);
  });
});

// design/attempt → outcome; the chemistry design (0) and the refraction design (2) are wrong programs, design 1
// ignores rng; the admitted three still have semantic faults the self-review and calibration gates are there for
const EXPECTED: string[] = [
  "0/0 executable: reset_failed",
  "0/1 executable: reset_failed",
  "0/2 executable: reset_failed",
  "1/0 executable: reset_failed",
  "1/1 deterministic: seeds_identical",
  "1/2 deterministic: seeds_identical",
  "2/0 executable: reset_failed",
  "2/1 executable: reset_failed",
  "2/2 executable: reset_failed",
  "3/0 admitted",
  "4/0 admitted",
  "5/0 admitted",
  // 2026-12-02 (every gate, restart repairs), designs 1 and 2 of that run: all pass the mechanical gates; in the run
  // 1/0 and 2/0 were rejected by self-review, 2/1 by calibration (too_hard), and 1/1 (digit-sum) and 2/2
  // (math-multiplication) passed all eleven gates
  "1/0 admitted",
  "1/1 admitted",
  "2/0 admitted",
  "2/1 admitted",
  "2/2 admitted",
  "0/0 static: syntax_error",
];
