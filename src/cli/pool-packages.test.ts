import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseConfig } from "../config/index.js";
import { ConfigError } from "../spec/index.js";
import { folderCatalog } from "../server/catalog.js";
import { poolPackages } from "./pool-packages.js";
import { resolveRunConfig } from "./run-command.js";

describe("pool.packages and pool.seeds", () => {
  const scratch = mkdtempSync(join(tmpdir(), "envforge-pool-"));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  it("bad input first: a missing folder, a folder without packages, a package that does not read, an empty memory", () => {
    expect(() => poolPackages(parseConfig({ pool: { packages: [join(scratch, "missing")] } }))).toThrow(new ConfigError(`pool.packages: ${join(scratch, "missing")} is not a folder`));
    mkdirSync(join(scratch, "empty", "notes"), { recursive: true });
    expect(() => poolPackages(parseConfig({ pool: { packages: [join(scratch, "empty")] } }))).toThrow(/holds no envforge package/);
    mkdirSync(join(scratch, "broken"));
    writeFileSync(join(scratch, "broken", "env.json"), "{ not json");
    expect(() => poolPackages(parseConfig({ pool: { packages: [join(scratch, "broken")] } }))).toThrow(ConfigError);
    expect(() => parseConfig({ pool: { seeds: false } })).toThrow(/memory would start empty/);
    // a tool whose parameters is not JSON Schema is refused at load, not at the first reply of an episode (and not by serve either)
    expect(() => poolPackages(parseConfig({ pool: { packages: ["fixtures/broken-envs/tool-schema-invalid"] } }))).toThrow(/pool\.packages: fixtures\/broken-envs\/tool-schema-invalid: bank-ledger: tool transfer: parameters is not a valid JSON Schema/);
    expect(() => folderCatalog(["fixtures/broken-envs/tool-schema-invalid"])).toThrow(/--envs fixtures\/broken-envs\/tool-schema-invalid: bank-ledger: tool transfer/);
  });

  it("reads a folder of packages and a single package folder, in name order", () => {
    const packages = poolPackages(parseConfig({ pool: { packages: ["envs/tool-seeds", "envs/seeds/number-guess"] } }));
    expect(packages.map((pkg) => pkg.manifest.name)).toEqual(["bank-ledger", "calendar-booking", "file-archive", "library-loans", "shop-orders", "ticket-tracker", "number-guess"]);
    expect(packages.slice(0, 6).every((pkg) => (pkg.manifest.tools?.length ?? 0) >= 2)).toBe(true);
  });

  it("run --packages and --no-seeds set them; without --no-seeds the config file's pool.seeds stands", () => {
    const file = join(scratch, "tool-run.json");
    writeFileSync(file, JSON.stringify({ pool: { packages: ["envs/tool-seeds"], seeds: false } }));
    expect(resolveRunConfig({ config: file }).pool).toEqual({ packages: ["envs/tool-seeds"], seeds: false });
    expect(resolveRunConfig({ packages: ["envs/tool-seeds"], seeds: false }).pool).toEqual({ packages: ["envs/tool-seeds"], seeds: false });
    expect(resolveRunConfig({}).pool).toEqual({ packages: [], seeds: true });
  });
});
