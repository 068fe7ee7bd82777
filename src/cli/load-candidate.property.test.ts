import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { EnvManifestSchema } from "../spec/index.js";
import { loadPackageFolder, toPackageDocument } from "../adapters/package-files/index.js";
import { loadCandidate } from "./load-candidate.js";

// Property tests (issue 17): the package loader never throws on a malformed package; it returns the
// package (with a valid manifest) or the static gate's typed `package_invalid` verdict.

const ROOT = join(import.meta.dirname, "..", "..");
const GOOD = loadPackageFolder(join(ROOT, "fixtures", "broken-envs", "good-number-sum"));
const dir = mkdtempSync(join(tmpdir(), "envforge-loader-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Any JSON value, and the good manifest with fields replaced, dropped or added at random. */
const manifests = fc.oneof(
  fc.jsonValue(),
  fc
    .record({
      field: fc.constantFrom(...Object.keys(GOOD.manifest), "__proto__", "extra"),
      value: fc.oneof(fc.jsonValue(), fc.constant(undefined), fc.constant(1e309), fc.constant(-0), fc.string({ unit: "grapheme" })),
    })
    .map(({ field, value }) => ({ ...GOOD.manifest, [field]: value })),
);

function expectTyped(loaded: ReturnType<typeof loadCandidate>): void {
  if ("package" in loaded) {
    expect(EnvManifestSchema.safeParse(loaded.package.manifest).success).toBe(true);
  } else {
    expect(loaded.invalid).toMatchObject({ status: "reject", gate: "static", reason: "package_invalid" });
    expect(typeof loaded.invalid.message).toBe("string");
  }
}

describe("loadCandidate on random and adversarial packages", () => {
  it("reads a package folder whatever env.json holds: a package or package_invalid, never a throw", () => {
    const folder = join(dir, "folder");
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 300 }), manifests.map((value) => JSON.stringify(value) ?? "null")), fc.string({ maxLength: 200 }), (manifestText, source) => {
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, "env.json"), manifestText);
        writeFileSync(join(folder, "env.py"), source);
        writeFileSync(join(folder, "oracle.py"), source);
        expectTyped(loadCandidate(folder));
      }),
      { numRuns: 150, seed: 17 },
    );
  });

  it("reads a JSON document whatever it holds: a package or package_invalid, never a throw", () => {
    const path = join(dir, "candidate.json");
    const document = toPackageDocument(GOOD);
    const documents = fc.oneof(
      fc.string({ maxLength: 300 }),
      fc.jsonValue().map((value) => JSON.stringify(value) ?? "null"),
      manifests.map((manifest) => JSON.stringify({ ...document, manifest })),
      fc.record({ env: fc.oneof(fc.string(), fc.jsonValue()), oracle: fc.oneof(fc.string(), fc.jsonValue()) }).map((files) => JSON.stringify({ ...document, files: { "env.py": files.env, "oracle.py": files.oracle } })),
    );
    fc.assert(
      fc.property(documents, (text) => {
        writeFileSync(path, text);
        expectTyped(loadCandidate(path));
      }),
      { numRuns: 300, seed: 17 },
    );
  });
});
