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

/** A search/replace block of env.py. */
const block = (search: string, replace: string, file = "env.py") => ["<<<<<<< SEARCH " + file, search, "=======", replace, ">>>>>>> REPLACE"].join("\n");

describe("buildChild with hostile search/replace replies", () => {
  it("never reads a dict in the code as manifest changes; a json block outside the blocks is read", () => {
    const dict = block("        self.done = False", "        self.done = False\n        self.limits = {\"maxTurns\": 50, \"skills\": \"dp\"}");
    const built = buildChild(PARENT, dict, provenance);
    expect(built.ok && built.package.manifest).toMatchObject({ maxTurns: 1, skills: ["recall"] });
    const withJson = buildChild(PARENT, `${dict}\n\n\`\`\`json\n{"title": "Answer 43"}\n\`\`\``, provenance);
    expect(withJson.ok && withJson.package.manifest.title).toBe("Answer 43");
  });

  it("drops a fence beside blank lines inside a section, and keeps a blank-line replacement", () => {
    const fenced = buildChild(PARENT, block("\n```python\n        self.done = False", "\n```python\n        self.done = False\n        self.count = 0\n```\n"), provenance);
    expect(fenced.ok && fenced.package.envSource).toBe(PARENT.envSource.replace("        self.done = False\n", "        self.done = False\n        self.count = 0\n"));
    const blank = buildChild(PARENT, block("        return 'Reply with 42.'", "        return 'Reply with 43.'\n"), provenance);
    expect(blank.ok && blank.package.envSource).toContain("        return 'Reply with 43.'\n\n");
  });

  it("reads SEARCH: env.py, backticks, a folder and upper case as env.py; refuses another file and a reply cut inside a block", () => {
    for (const named of [": env.py", "`env.py`", "ENV.PY", "envs/answer/env.py"]) {
      const built = buildChild(PARENT, block("        self.done = False", "        self.done = False\n        self.count = 0").replace("SEARCH env.py", `SEARCH ${named}`), provenance);
      expect(built.ok ? built.form : built.verdict.message).toBe("replace");
    }
    const json = buildChild(PARENT, block('"title": "Answer 42"', '"title": "Answer 43"', "env.json"), provenance);
    expect(json.ok ? "" : json.verdict).toMatchObject({ reason: "patch_failed", message: expect.stringContaining("a block names env.json: blocks edit env.py or oracle.py only") });
    const cut = buildChild(PARENT, `${block("        self.done = False", "        self.done = False\n        self.count = 0")}\n<<<<<<< SEARCH env.py\n        return 'Reply`, provenance);
    expect(cut.ok ? "" : cut.verdict).toMatchObject({ reason: "patch_failed", message: expect.stringContaining("the reply ends inside a block for env.py") });
  });

  it("says when a SEARCH was changed by an earlier block of the same reply", () => {
    const overlap = `${block("        self.done = False\n        return 'Reply with 42.'", "        self.done = False\n        return 'Reply with 43.'")}\n${block("        return 'Reply with 42.'", "        return 'Reply with 44.'")}`;
    const built = buildChild(PARENT, overlap, provenance);
    expect(built.ok ? "" : built.verdict).toMatchObject({ reason: "patch_failed", message: expect.stringContaining("were changed by an earlier block of this reply; put both changes in one block") });
  });
});

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
