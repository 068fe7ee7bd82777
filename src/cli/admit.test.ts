import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../config/index.js";
import { admit, buildGates, calibrationGate, type AdmissionContext } from "../core/admission/index.js";
import { loadPackageFolder, loadSeedPackages, toPackageDocument } from "../adapters/package-files/index.js";
import { BwrapSandbox } from "../adapters/sandbox/index.js";
import { admissionResources } from "./admission-resources.js";

// End-to-end tests of the built CLI (npm test builds first) against the broken-environment corpus.

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const BIN = join(ROOT, "bin", "envforge.js");
const CORPUS = join(ROOT, "fixtures", "broken-envs");
const envforge = (...args: string[]) => spawnSync("node", [BIN, ...args], { encoding: "utf8", cwd: ROOT });

function labels(): { fixture: string; gate: string | null; reason: string | null }[] {
  return readdirSync(CORPUS, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => ({ fixture: entry.name, ...(JSON.parse(readFileSync(join(CORPUS, entry.name, "expected.json"), "utf8")) as { gate: string | null; reason: string | null }) }));
}
const MODEL_GATES = ["self-review", "calibration"];

describe("envforge admit PATH", () => {
  it("admits a seed environment and prints the JSON verdict with per-gate timings", () => {
    const result = envforge("admit", "envs/seeds/knapsack", "--json");
    expect(result.status).toBe(0);
    const output = JSON.parse(result.stdout);
    expect(Object.keys(output)).toEqual(["admitted", "gate", "reason", "message", "timingsMs"]);
    expect(output).toMatchObject({ admitted: true, gate: null, reason: null });
    expect(Object.keys(output.timingsMs)).toEqual(["static", "executable", "deterministic", "oracle", "negative-controls", "scorer-contract", "hint", "levels", "novelty", "decontamination"]);
    expect(result.stderr).toMatch(/self-review and calibration not run: they need a language model/);
  });

  it("rejects a broken package with exit 1, from a folder or a JSON document", () => {
    const folder = envforge("admit", join(CORPUS, "oracle-off-by-one"), "--json");
    expect(folder.status).toBe(1);
    expect(JSON.parse(folder.stdout)).toMatchObject({ admitted: false, gate: "oracle", reason: "oracle_failed" });
    const documentPath = join(mkdtempSync(join(tmpdir(), "envforge-admit-")), "candidate.json");
    writeFileSync(documentPath, JSON.stringify(toPackageDocument(loadPackageFolder(join(CORPUS, "always-win")))));
    const document = envforge("admit", documentPath);
    expect(document.status).toBe(1);
    expect(document.stdout).toMatch(/^rejected by negative-controls \(empty_solution_passes\)/);
    writeFileSync(documentPath, "{ not json");
    expect(JSON.parse(envforge("admit", documentPath, "--json").stdout)).toMatchObject({ gate: "static", reason: "package_invalid" });
  });

  it("runs only the chosen gates", () => {
    const chosen = JSON.parse(envforge("admit", join(CORPUS, "oracle-off-by-one"), "--json", "--gates", "static,executable").stdout);
    expect(chosen).toMatchObject({ admitted: true });
    expect(Object.keys(chosen.timingsMs)).toEqual(["static", "executable"]);
    const skipped = JSON.parse(envforge("admit", join(CORPUS, "oracle-off-by-one"), "--json", "--skip", "oracle,scorer-contract,hint").stdout);
    expect(skipped).toMatchObject({ admitted: true });
    expect(Object.keys(skipped.timingsMs)).not.toContain("oracle");
  });

  it("exits 2 on usage and I/O errors", () => {
    expect(envforge("admit", "no/such/package").status).toBe(2);
    expect(envforge("admit", "envs/seeds").stderr).toMatch(/not a package folder: env\.json is missing/);
    const unknown = envforge("admit", "envs/seeds/knapsack", "--gates", "static,magic");
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/unknown gate "magic"/);
    expect(envforge("admit").status).toBe(2);
    expect(envforge("admit", "envs/seeds/knapsack", "--gates", "self-review").stderr).toMatch(/needs a language model: pass --model/);
  });

  it("refuses an empty or repeated pipeline and an evaluation of nothing instead of passing them", () => {
    const allSkipped = envforge("admit", "envs/seeds/knapsack", "--gates", "static", "--skip", "static", "--json");
    expect(allSkipped.status).toBe(2);
    expect(allSkipped.stderr).toMatch(/leaves no gate to run/);
    const twice = envforge("admit", "envs/seeds/knapsack", "--gates", "static,static");
    expect(twice.status).toBe(2);
    expect(twice.stderr).toMatch(/more than once/);
    const onlyModelGates = envforge("admit", "envs/seeds/knapsack", "--skip", "static,executable,deterministic,oracle,negative-controls,scorer-contract,hint,levels,novelty,decontamination");
    expect(onlyModelGates.status).toBe(2);
    expect(onlyModelGates.stderr).toMatch(/no gate left to run/);
    const nothing = envforge("admit", "--eval", "envs/seeds", "--json");
    expect(nothing.status).toBe(2);
    expect(nothing.stderr).toMatch(/holds no labelled fixtures/);
  });

  it("adds --pool packages (a package folder or a folder of them) to the novelty pool", () => {
    const copy = join(CORPUS, "copy-of-pool-member");
    expect(JSON.parse(envforge("admit", copy, "--json").stdout)).toMatchObject({ admitted: true });
    const withOne = JSON.parse(envforge("admit", copy, "--json", "--pool", join(CORPUS, "good-counter-target")).stdout);
    expect(withOne).toMatchObject({ admitted: false, gate: "novelty", reason: "text_near_duplicate" });
    expect(withOne.message).toMatch(/with counter-target/);
    const folder = mkdtempSync(join(tmpdir(), "envforge-pool-"));
    cpSync(join(CORPUS, "good-counter-target"), join(folder, "counter"), { recursive: true });
    expect(JSON.parse(envforge("admit", copy, "--json", "--pool", folder, "envs/seeds/knapsack").stdout)).toMatchObject({ gate: "novelty", reason: "text_near_duplicate" });
    const missing = envforge("admit", copy, "--pool", "no/such/folder");
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/--pool no\/such\/folder does not exist/);
    rmSync(folder, { recursive: true, force: true });
  });

  it("rejects a byte-identical copy of a seed or an --pool package as a duplicate, and still admits the seed itself", () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-copy-"));
    cpSync("envs/seeds/knapsack", join(folder, "knapsack"), { recursive: true });
    const copy = envforge("admit", join(folder, "knapsack"), "--json", "--gates", "static,novelty");
    expect(copy.status).toBe(1);
    expect(JSON.parse(copy.stdout)).toMatchObject({ admitted: false, gate: "novelty", reason: "exact_copy", message: expect.stringMatching(/exact copy of knapsack/) });
    const seed = envforge("admit", "envs/seeds/knapsack", "--json", "--gates", "static,novelty");
    expect(JSON.parse(seed.stdout)).toMatchObject({ admitted: true });
    cpSync(join(CORPUS, "good-counter-target"), join(folder, "counter"), { recursive: true });
    const pooled = envforge("admit", join(folder, "counter"), "--json", "--gates", "static,novelty", "--pool", join(CORPUS, "good-counter-target"));
    expect(JSON.parse(pooled.stdout)).toMatchObject({ gate: "novelty", reason: "exact_copy" });
    rmSync(folder, { recursive: true, force: true });
  });

  it("escapes control characters in error messages that quote a file (an --pool env.json of escape bytes)", () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-pool-"));
    cpSync(join(CORPUS, "good-counter-target"), join(folder, "pkg"), { recursive: true });
    writeFileSync(join(folder, "pkg", "env.json"), "\u001b]0;pwned\u0007\u001b[2J{");
    const result = envforge("admit", join(CORPUS, "copy-of-pool-member"), "--pool", folder);
    rmSync(folder, { recursive: true, force: true });
    expect(result.status).toBe(2);
    expect(result.stderr).toContain("\\x1b]0;pwned\\x07");
    expect(result.stderr).not.toContain("\u001b");
  });

  it("prints an environment's control characters escaped, never raw (ANSI/OSC in an exception message)", () => {
    const text = envforge("admit", join(CORPUS, "terminal-escapes-in-error"));
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(/^rejected by executable \(reset_failed\)/);
    expect(text.stdout).toContain("\\x1b]0;owned\\x07\\x1b[2J");
    expect(text.stdout).toContain("\\x9b0m");
    expect(text.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u);
    const json = envforge("admit", join(CORPUS, "terminal-escapes-in-error"), "--json");
    expect(json.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u);
    expect(JSON.parse(json.stdout).message).toContain("\u001b]0;owned");
  });

  it("opens the configured sandbox backend: process without trustedCode is refused", () => {
    const dir = mkdtempSync(join(tmpdir(), "envforge-admit-"));
    const config = join(dir, "process.json");
    writeFileSync(config, JSON.stringify({ sandbox: { backend: "process" } }));
    const refused = envforge("admit", "envs/seeds/knapsack", "--config", config);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/trustedCode/);
  });
});

describe("envforge admit --eval over the broken-environment corpus", () => {
  it("detects every mechanical fixture by its labelled gate and reason, with no false rejection", () => {
    const result = envforge("admit", "--eval", CORPUS, "--json");
    const report = JSON.parse(result.stdout);
    const all = labels();
    const broken = all.filter((entry) => entry.gate !== null);
    const mechanical = broken.filter((entry) => !MODEL_GATES.includes(entry.gate ?? ""));
    expect(broken.length).toBeGreaterThanOrEqual(60);
    expect(report.missed).toEqual([]);
    expect(report.falseRejections).toEqual([]);
    expect(report.fixtures).toBe(mechanical.length);
    expect(report.detected).toBe(mechanical.length);
    expect(Object.keys(report.perGate).sort()).toEqual(["decontamination", "deterministic", "executable", "hint", "levels", "negative-controls", "novelty", "oracle", "scorer-contract", "static"]);
    expect(report.skipped.sort()).toEqual(broken.filter((entry) => MODEL_GATES.includes(entry.gate ?? "")).map((entry) => entry.fixture).sort());
    expect(result.status).toBe(0);
  }, 900_000);
});

describe("model-gate fixtures", () => {
  const sandbox = new BwrapSandbox();
  const config = parseConfig({ admission: { skip: MODEL_GATES } });
  const context: AdmissionContext = { ...admissionResources(config, join(CORPUS, "benchmarks.jsonl")), sandbox, settings: config.admission, pool: loadSeedPackages() };
  afterAll(() => sandbox.close());

  it("pass every mechanical gate, so only the model-based gates can catch them", async () => {
    for (const entry of labels().filter((label) => MODEL_GATES.includes(label.gate ?? ""))) {
      const result = await admit(loadPackageFolder(join(CORPUS, entry.fixture)), buildGates(config.admission), context);
      expect([entry.fixture, result.admitted]).toEqual([entry.fixture, true]);
    }
  }, 600_000);

  it("are rejected by calibration with a SCRIPTED Solver that always replies with the remembered code (no model)", async () => {
    const remembered = (observation: string) => (Number(/room (\d+)/.exec(observation)?.[1]) % 2 === 0 ? "Code: 4172" : "Code: 5293");
    const solver = { maxTurns: 1, policy: () => ({ name: "remembers-both-codes", act: async ({ observation }: { observation: string }) => ({ text: remembered(observation) }) }) };
    const easy = await calibrationGate().check(loadPackageFolder(join(CORPUS, "calibration-too-easy")), { ...context, solver });
    const impossible = await calibrationGate().check(loadPackageFolder(join(CORPUS, "calibration-impossible")), { ...context, solver });
    expect([easy.status === "reject" && easy.reason, impossible.status === "reject" && impossible.reason]).toEqual(["too_easy", "too_hard"]);
  }, 120_000);
});
