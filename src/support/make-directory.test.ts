import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { makeDirectory } from "./make-directory.js";

describe("makeDirectory", () => {
  it("creates missing parents and accepts an existing directory", () => {
    const root = mkdtempSync(join(tmpdir(), "envforge-dir-"));
    makeDirectory(join(root, "a", "b", "c"));
    expect(statSync(join(root, "a", "b", "c")).isDirectory()).toBe(true);
    makeDirectory(join(root, "a", "b", "c"));
  });

  it("fails instead of hanging under /proc", () => {
    expect(() => makeDirectory("/proc/envforge-nope/run")).toThrowError();
  });

  it("fails when a level is a file", () => {
    const root = mkdtempSync(join(tmpdir(), "envforge-dir-"));
    writeFileSync(join(root, "file"), "x");
    expect(() => makeDirectory(join(root, "file", "run"))).toThrowError(/not a directory|ENOTDIR/);
  });
});
