import { execFileSync } from "node:child_process";
import { linkSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PackageFormatError, packageId } from "../../spec/index.js";
import { samplePackage } from "../store/store.contract.js";
import { fromPackageDocument, loadPackageFolder, loadPackageFolders, savePackageFolder, toPackageDocument } from "./package-files.js";

describe("environment package files", () => {
  it("round-trips through a folder and through a JSON document", () => {
    const pkg = samplePackage(1);
    const folder = join(mkdtempSync(join(tmpdir(), "envforge-pkg-")), "sample");
    savePackageFolder(pkg, folder);
    expect(loadPackageFolder(folder)).toEqual(pkg);
    expect(fromPackageDocument(JSON.parse(JSON.stringify(toPackageDocument(pkg))))).toEqual(pkg);
  });

  it("identifies a package by content, not by provenance", () => {
    const pkg = samplePackage(1);
    const sameTaskLater = { ...pkg, manifest: { ...pkg.manifest, provenance: { ...pkg.manifest.provenance, createdAt: "2030-01-01T00:00:00.000Z" } } };
    expect(packageId(sameTaskLater)).toBe(packageId(pkg));
    expect(packageId(samplePackage(2))).not.toBe(packageId(pkg));
    expect(packageId(pkg)).toMatch(/^env-[0-9a-f]{16}$/);
  });

  it("names the file and field of an invalid manifest", () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-pkg-"));
    savePackageFolder(samplePackage(1), folder);
    const manifest = { ...samplePackage(1).manifest, maxTurns: 0 };
    writeFileSync(join(folder, "env.json"), JSON.stringify(manifest));
    expect(() => loadPackageFolder(folder)).toThrowError(/env\.json: maxTurns/);
    writeFileSync(join(folder, "env.json"), "{");
    expect(() => loadPackageFolder(folder)).toThrowError(PackageFormatError);
    expect(() => loadPackageFolder(join(folder, "missing"))).toThrowError(/cannot read/);
  });

  it("reads a manifest's levels and names a bad levels block by field", () => {
    const base = toPackageDocument(samplePackage(1));
    const withLevels = (levels: unknown) => ({ ...base, manifest: { ...base.manifest, levels } });
    expect(fromPackageDocument(withLevels({ count: 6, description: "more items" })).manifest.levels).toEqual({ count: 6, description: "more items" });
    for (const [levels, message] of [
      [{ count: 0, description: "x" }, /levels\.count/],
      [{ count: 65, description: "x" }, /levels\.count/],
      [{ count: 2.5, description: "x" }, /levels\.count/],
      [{ count: 3, description: "   " }, /levels\.description: must not be blank/],
      [{ count: 3 }, /levels\.description/],
      [5, /levels/],
    ] as const) {
      expect(() => fromPackageDocument(withLevels(levels))).toThrow(message);
    }
  });

  it("refuses an env.py that is a FIFO instead of blocking on it forever", () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-pkg-"));
    savePackageFolder(samplePackage(1), folder);
    rmSync(join(folder, "env.py"));
    execFileSync("mkfifo", [join(folder, "env.py")]);
    expect(() => loadPackageFolder(folder)).toThrowError(/env\.py: not a regular file/);
  });

  it("refuses package files that are links: a symbolic link to a host file, a hard link", () => {
    const folder = mkdtempSync(join(tmpdir(), "envforge-pkg-"));
    savePackageFolder(samplePackage(1), folder);
    rmSync(join(folder, "env.py"));
    symlinkSync("/etc/passwd", join(folder, "env.py"));
    expect(() => loadPackageFolder(folder)).toThrowError(/env\.py: it is a symbolic link/);
    rmSync(join(folder, "env.py"));
    writeFileSync(join(folder, "elsewhere.py"), "class Env: ...\n");
    linkSync(join(folder, "elsewhere.py"), join(folder, "env.py"));
    expect(() => loadPackageFolder(folder)).toThrowError(/env\.py: it is a hard link/);
    rmSync(folder, { recursive: true, force: true });
  });

  it("rejects a document without both files", () => {
    const document = toPackageDocument(samplePackage(1));
    expect(() => fromPackageDocument({ ...document, files: { "env.py": "" } })).toThrowError(/oracle\.py/);
  });
});

describe("loadPackageFolders", () => {
  it("skips hidden folders and folders holding no package file (a git checkout of packages), and fails on a half package", () => {
    const root = mkdtempSync(join(tmpdir(), "envforge-folders-"));
    try {
      savePackageFolder(samplePackage(2), join(root, "b-env"));
      savePackageFolder(samplePackage(1), join(root, "a-env"));
      mkdirSync(join(root, ".git", "objects"), { recursive: true });
      mkdirSync(join(root, "notes"));
      writeFileSync(join(root, "notes", "README.md"), "not a package\n");
      expect(loadPackageFolders(root).map((pkg) => packageId(pkg))).toEqual([packageId(samplePackage(1)), packageId(samplePackage(2))]);
      mkdirSync(join(root, "half"));
      writeFileSync(join(root, "half", "env.py"), "class E: pass\n");
      expect(() => loadPackageFolders(root)).toThrowError(PackageFormatError);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
