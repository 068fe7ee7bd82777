import { describe, expect, it } from "vitest";
import { buildTerminalChild } from "./terminal-child.js";

const PARENT = {
  "instruction.md": "Write hello to /app/out.txt.\n",
  "tests/test.sh": "#!/bin/bash\n[ \"$(cat /app/out.txt)\" = hello ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n",
  "solution/solve.sh": "#!/bin/bash\necho hello > /app/out.txt\n",
};

const edit = (file: string, search: string, replace: string) => `<<<<<<< SEARCH ${file}\n${search}\n=======\n${replace}\n>>>>>>> REPLACE`;

function verdict(completion: string): string {
  const built = buildTerminalChild(PARENT, completion);
  if (built.ok) throw new Error("expected a rejection");
  return `${built.verdict.gate}/${built.verdict.status === "reject" ? built.verdict.reason : ""}`;
}

describe("buildTerminalChild: bad Modifier replies", () => {
  it("no block at all", () => expect(verdict("I would make it harder.")).toBe("modify/no_change_found"));
  it("a block for a file the task does not have", () => expect(verdict(edit("env.py", "x", "y"))).toBe("modify/patch_failed"));
  it("search lines that are not in the file", () => expect(verdict(edit("solution/solve.sh", "echo bye > /app/out.txt", "echo hi"))).toBe("modify/patch_failed"));
  it("a reply that ends inside a block", () => expect(verdict("<<<<<<< SEARCH tests/test.sh\nfoo\n=======\nbar")).toBe("modify/patch_failed"));
  it("files equal to the parent's", () => expect(verdict("```bash solution/solve.sh\n#!/bin/bash\necho hello > /app/out.txt\n```")).toBe("modify/child_unchanged"));
});

describe("buildTerminalChild: the two forms", () => {
  it("search/replace blocks apply in order across files", () => {
    const built = buildTerminalChild(PARENT, [edit("instruction.md", "Write hello to /app/out.txt.", "Write HELLO to /app/out.txt."), edit("solution/solve.sh", "echo hello > /app/out.txt", "echo HELLO > /app/out.txt")].join("\n"));
    expect(built.ok && built.form).toBe("replace");
    expect(built.ok && built.files["solution/solve.sh"]).toContain("HELLO");
    expect(built.ok && built.files["tests/test.sh"]).toBe(PARENT["tests/test.sh"]);
  });

  it("whole files named by path replace the parent's and may add a data file", () => {
    const built = buildTerminalChild(PARENT, "```text environment/words.txt\nalpha\n```\n```bash solution/solve.sh\n#!/bin/bash\nhead -1 /app/words.txt > /app/out.txt\n```");
    expect(built.ok && built.form).toBe("files");
    expect(built.ok && Object.keys(built.files).sort()).toEqual(["environment/words.txt", "instruction.md", "solution/solve.sh", "tests/test.sh"]);
  });
});
