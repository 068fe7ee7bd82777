import { createTwoFilesPatch } from "diff";
import { describe, expect, it } from "vitest";
import { packageId, type Provenance } from "../../spec/index.js";
import { filesReply, PARENT, SUM_ENV, SUM_ORACLE } from "../../testing/evolution-fixtures.js";
import { buildChild, generationName, packagePatch } from "./child-package.js";

const provenance: Provenance = {
  origin: "evolution",
  parentId: packageId(PARENT),
  generation: 2,
  designerModel: "scripted-fake",
  promptHash: null,
  corpusDocumentIds: [],
  createdAt: "2026-11-29T12:00:00.000Z",
};

describe("buildChild", () => {
  it("builds a child from full files and manifest changes", () => {
    const result = buildChild(PARENT, filesReply(SUM_ENV, SUM_ORACLE), provenance);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.form).toBe("files");
    expect(result.package.envSource).toBe(SUM_ENV);
    expect(result.package.oracleSource).toBe(SUM_ORACLE);
    expect(result.package.manifest).toMatchObject({ name: "answer-42-g2", title: "Add two numbers", skills: ["addition"], scenario: "arithmetic quiz", hint: "Multiply six by seven to get it.", provenance });
  });

  it("applies a unified diff against the parent and keeps unpatched files", () => {
    const patched = PARENT.envSource.replace("'42'", "'43'").replace("Reply with 42.", "Reply with 43.");
    const diff = createTwoFilesPatch("a/env.py", "b/env.py", PARENT.envSource, patched);
    const result = buildChild(PARENT, `Changes:\n\`\`\`diff\n${diff}\`\`\`\n`, provenance);
    expect(result.ok && result.form).toBe("patch");
    if (!result.ok) return;
    expect(result.package.envSource).toBe(patched);
    expect(result.package.oracleSource).toBe(PARENT.oracleSource);
    expect(result.package.manifest.title).toBe(PARENT.manifest.title);
  });

  it("applies search/replace blocks and rejects one whose lines are not in the parent", () => {
    const line = PARENT.envSource.split("\n").find((text) => text.includes("'42'")) as string;
    const reply = ["```", "<<<<<<< SEARCH env.py", line, "=======", line.replace("'42'", "'43'"), ">>>>>>> REPLACE", "```", '```json\n{"title": "Say 43"}\n```'].join("\n");
    const result = buildChild(PARENT, reply, provenance);
    expect(result.ok && result.form).toBe("replace");
    if (!result.ok) return;
    expect(result.package.envSource).toBe(PARENT.envSource.replace(line, line.replace("'42'", "'43'")));
    expect(result.package.manifest.title).toBe("Say 43");
    const missing = buildChild(PARENT, "<<<<<<< SEARCH\nclass Nothing:\n=======\nclass Other:\n>>>>>>> REPLACE\n", provenance);
    expect(missing).toMatchObject({ ok: false, verdict: { reason: "patch_failed", message: expect.stringContaining("are not in env.py") } });
  });

  it("rejects a patch whose hunks do not apply", () => {
    const diff = ["--- a/env.py", "+++ b/env.py", "@@ -1,2 +1,2 @@", "-class Nothing:", "-    pass", "+class Other:", "+    pass", ""].join("\n");
    const result = buildChild(PARENT, `\`\`\`diff\n${diff}\`\`\``, provenance);
    expect(result).toMatchObject({ ok: false, verdict: { gate: "modify", reason: "patch_failed" } });
  });

  it("rejects replies without code, unchanged children and invalid manifest changes", () => {
    expect(buildChild(PARENT, "I made it harder.", provenance)).toMatchObject({ ok: false, verdict: { reason: "no_change_found" } });
    expect(buildChild(PARENT, filesReply(PARENT.envSource, PARENT.oracleSource, {}), provenance)).toMatchObject({ ok: false, verdict: { reason: "child_unchanged" } });
    expect(buildChild(PARENT, filesReply(SUM_ENV, SUM_ORACLE, { maxTurns: 0 }), provenance)).toMatchObject({ ok: false, verdict: { reason: "invalid_manifest" } });
    expect(buildChild(PARENT, filesReply(SUM_ENV, SUM_ORACLE, { passThreshold: 5 }), provenance)).toMatchObject({ ok: false, verdict: { reason: "invalid_manifest" } });
  });
});

describe("generationName / packagePatch", () => {
  it("names generations after the seed", () => {
    expect(generationName("number-guess", 1)).toBe("number-guess-g1");
    expect(generationName("number-guess-g1", 2)).toBe("number-guess-g2");
    expect(generationName("x".repeat(64), 15)).toHaveLength(64);
  });

  it("writes a diff of the changed files only", () => {
    const result = buildChild(PARENT, filesReply(SUM_ENV, PARENT.oracleSource.replace("'42'", "str(env.a + env.b)")), provenance);
    if (!result.ok) throw new Error("fixture must build");
    const patch = packagePatch(PARENT, result.package);
    expect(patch).toMatch(/--- a\/env\.json\n\+\+\+ b\/env\.json/);
    expect(patch).toMatch(/\+\+\+ b\/env\.py/);
    expect(patch).toMatch(/\+\+\+ b\/oracle\.py/);
    expect(packagePatch(PARENT, PARENT)).toBe("");
  });
});
