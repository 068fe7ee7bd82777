import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CorpusError } from "../../spec/index.js";
import { readCorpus } from "./read-corpus.js";

const scratch = () => mkdtempSync(join(tmpdir(), "envforge-corpus-"));

describe("corpus readers", () => {
  it("reads the shipped sample corpus: at least 40 documents with unique ids", () => {
    const documents = readCorpus(null);
    expect(documents.length).toBeGreaterThanOrEqual(40);
    expect(new Set(documents.map((document) => document.id)).size).toBe(documents.length);
    for (const document of documents) expect(document.text.split(/\s+/).length).toBeGreaterThan(30);
  });

  it("reads a JSONL file and skips blank lines", () => {
    const path = join(scratch(), "c.jsonl");
    writeFileSync(path, '{"id":"a","text":"alpha"}\n\n{"id":"b","text":"beta","title":"B"}\n');
    expect(readCorpus(path)).toEqual([
      { id: "a", text: "alpha" },
      { id: "b", text: "beta", title: "B" },
    ]);
  });

  it("names the line of a malformed or duplicate JSONL document", () => {
    const path = join(scratch(), "c.jsonl");
    writeFileSync(path, '{"id":"a","text":"alpha"}\n{"id":"a","text":"again"}\n');
    expect(() => readCorpus(path)).toThrowError(/c\.jsonl:2 repeats id "a"/);
    writeFileSync(path, '{"id":"a"}\n');
    expect(() => readCorpus(path)).toThrowError(/c\.jsonl:1 needs string fields/);
    writeFileSync(path, "not json\n");
    expect(() => readCorpus(path)).toThrowError(CorpusError);
  });

  it("reads a folder of .txt and .md files, ignoring others", () => {
    const folder = scratch();
    writeFileSync(join(folder, "one.md"), "# One\nfirst");
    writeFileSync(join(folder, "two.txt"), "second");
    writeFileSync(join(folder, "skip.json"), "{}");
    mkdirSync(join(folder, "sub"));
    expect(readCorpus(folder).map((document) => document.id)).toEqual(["one", "two"]);
  });

  it("rejects a missing path, an unknown file kind and an empty corpus", () => {
    const folder = scratch();
    expect(() => readCorpus(join(folder, "missing.jsonl"))).toThrowError(/not found/);
    writeFileSync(join(folder, "c.csv"), "x");
    expect(() => readCorpus(join(folder, "c.csv"))).toThrowError(/must be a \.jsonl file or a folder/);
    const empty = scratch();
    expect(() => readCorpus(empty)).toThrowError(/holds no documents/);
  });
});
