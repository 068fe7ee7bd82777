import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../spec/index.js";
import { exportEnvironments } from "./export-env-command.js";

// Refusals and what an export writes (files only; export-formats.test.ts installs them and runs each ecosystem's tools).

const EVOLUTION = fileURLToPath(new URL("../../fixtures/evolution-run", import.meta.url));
const out = mkdtempSync(join(tmpdir(), "envforge-export-"));
afterAll(() => rmSync(out, { recursive: true, force: true }));

describe("envforge export env: bad requests", () => {
  it("refuses an unknown format, nothing named, an unknown environment, refs with --all, --store with --envs, and an existing folder", () => {
    expect(() => exportEnvironments(["number-guess"], { format: "harbour", out })).toThrow(/--format harbour: one of gymnasium, harbor, openenv, verifiers/);
    expect(() => exportEnvironments([], { format: "gymnasium", out })).toThrow(/name an environment .* or pass --all/);
    expect(() => exportEnvironments(["no-such-env"], { format: "gymnasium", out })).toThrow(ConfigError);
    expect(() => exportEnvironments(["no-such-env"], { format: "gymnasium", out })).toThrow(/no environment "no-such-env" in this source/);
    expect(() => exportEnvironments(["number-guess"], { format: "gymnasium", out, all: true })).toThrow(/not both/);
    expect(() => exportEnvironments(["number-guess"], { format: "gymnasium", out, store: EVOLUTION, envs: ["envs/seeds"] })).toThrow(/either --store or --envs/);
    expect(() => exportEnvironments([], { format: "gymnasium", out, all: true, skill: "no such skill" })).toThrow(/no environment matches/);
    expect(() => exportEnvironments(["number-guess"], { format: "gymnasium", out: join(out, "missing-store"), store: join(out, "nowhere") })).toThrow(/no envforge.db there/);
    expect(() => exportEnvironments(["bank-ledger"], { format: "openenv", out, envs: ["envs/tool-seeds"] })).toThrow(/bank-ledger: tool environments are not exported yet/);
    exportEnvironments(["number-guess"], { format: "gymnasium", out });
    expect(() => exportEnvironments(["number-guess"], { format: "gymnasium", out })).toThrow(/exists: remove it or pass --replace/);
    expect(exportEnvironments(["number-guess"], { format: "gymnasium", out, replace: true }).packages).toHaveLength(1);
  });
});

describe("envforge export env: what it writes", () => {
  it("exports a lineage from a store: both generations, named apart, with lineage, admission verdicts and sha256 in the provenance", () => {
    const { packages } = exportEnvironments(["lin-number-guess-d7f76796"], { format: "openenv", out, store: EVOLUTION });
    expect(packages.map((item) => item.distribution)).toEqual(["openenv-number_guess_env", "openenv-number_guess_g1_env"]);
    const child = packages[1];
    expect(child?.files).toEqual(expect.arrayContaining(["openenv.yaml", "pyproject.toml", "models.py", "client.py", "server/app.py", "server/number_guess_g1_env_environment.py", "program/env.py", "program/provenance.json", "envforge_episode.py"]));
    const provenance = JSON.parse(readFileSync(join(child?.folder ?? "", "program", "provenance.json"), "utf8"));
    expect(provenance).toMatchObject({ id: "env-4f5d2bae6626d4eb", origin: { origin: "evolution", parentId: "env-d7f76796936559c3", generation: 1 }, lineage: { lineageId: "lin-number-guess-d7f76796", generation: 1 } });
    expect(provenance.admission.map((verdict: { gate: string }) => verdict.gate)).toEqual(expect.arrayContaining(["static", "executable", "deterministic", "oracle", "negative-controls"]));
    const program = readFileSync(join(child?.folder ?? "", "program", "env.py"), "utf8");
    expect(provenance.sha256["env.py"]).toMatch(/^[0-9a-f]{64}$/);
    expect(program).toContain("def reset(self, seed, level");
    const readme = readFileSync(join(child?.folder ?? "", "README.md"), "utf8");
    expect(readme).toMatch(/runs the environment program without a sandbox/);
    expect(readme).toMatch(/ENVFORGE_SERVER_URL/);
    expect(readFileSync(join(child?.folder ?? "", "openenv.yaml"), "utf8")).toMatch(/name: number_guess_g1_env\n/);
  });
});

describe("envforge export env: the printed usage", () => {
  it("quotes a package folder with a space, so the printed command can be pasted as is", () => {
    const spaced = join(out, "my exports");
    for (const format of ["gymnasium", "openenv", "verifiers", "harbor"]) {
      const [item] = exportEnvironments(["number-guess"], { format, out: spaced }).packages;
      expect(item?.usage).toContain(`'${spaced}/`);
      expect(item?.usage).not.toMatch(/(^|[ ;])\/[^' ]*my exports/);
    }
  });
});
