import { describe, expect, it } from "vitest";
import { parseTerminalDesign, REQUIRED_TASK_FILES } from "./parse-terminal-design.js";
import { buildTerminalDesignerPrompt, renderTaskFiles } from "./terminal-designer-prompt.js";

const FILES: Record<string, string> = {
  "task.toml": '[metadata]\nhint = "look at the header"\n',
  "instruction.md": "Write the number of lines of /app/data.txt to /app/count.txt.\n",
  "environment/Dockerfile": "FROM debian:bookworm-slim\nWORKDIR /app\nCOPY data.txt /app/data.txt\n",
  "environment/data.txt": "a\nb\nc\n",
  "tests/test.sh": "#!/bin/bash\n[ \"$(cat /app/count.txt)\" = 3 ] && echo 1 > /logs/verifier/reward.txt || echo 0 > /logs/verifier/reward.txt\n",
  "solution/solve.sh": "#!/bin/bash\nwc -l < /app/data.txt > /app/count.txt\n",
};

function reason(completion: string): string {
  const parsed = parseTerminalDesign(completion);
  if (parsed.ok) throw new Error("expected a rejection");
  return `${parsed.verdict.gate}/${parsed.verdict.status === "reject" ? parsed.verdict.reason : ""}`;
}

describe("parseTerminalDesign: bad completions", () => {
  it("no block, or blocks that name no task file, is unparseable", () => {
    expect(reason("I would write a task about logs.")).toBe("parse/unparseable");
    expect(reason("```bash\necho hi\n```\n```python main.py\nprint(1)\n```")).toBe("parse/unparseable");
  });

  it("a missing required file is named", () => {
    for (const path of REQUIRED_TASK_FILES) {
      const files = { ...FILES };
      delete files[path];
      const parsed = parseTerminalDesign(renderTaskFiles(files));
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) expect(parsed.verdict.status === "reject" && parsed.verdict.message).toContain(path);
    }
  });

  it("paths that leave the folder or are not task paths are ignored, not written", () => {
    const completion = `${renderTaskFiles(FILES)}\n\`\`\`bash ../../etc/passwd\nroot\n\`\`\`\n\`\`\`text /etc/shadow\nx\n\`\`\`\n\`\`\`text environment/../../x\ny\n\`\`\``;
    const parsed = parseTerminalDesign(completion);
    expect(parsed.ok && Object.keys(parsed.files).sort()).toEqual(Object.keys(FILES).sort());
  });

  it("too many files, or one too long, is too_large", () => {
    const many = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`environment/f${index}.txt`, "x"]));
    expect(reason(renderTaskFiles({ ...FILES, ...many }))).toBe("parse/too_large");
    expect(reason(renderTaskFiles({ ...FILES, "environment/big.txt": "x".repeat(70_000) }))).toBe("parse/too_large");
  });
});

describe("parseTerminalDesign: the format", () => {
  it("reads back what the prompt renders, paths in the info string", () => {
    const parsed = parseTerminalDesign(renderTaskFiles(FILES));
    expect(parsed.ok && parsed.files).toEqual(FILES);
  });

  it("also reads a path on the block's first line, and a later block replaces an earlier one", () => {
    const completion = [renderTaskFiles(FILES), "```bash\n# file: solution/solve.sh\n#!/bin/bash\necho 3 > /app/count.txt\n```"].join("\n");
    const parsed = parseTerminalDesign(completion);
    expect(parsed.ok && parsed.files["solution/solve.sh"]).toBe("#!/bin/bash\necho 3 > /app/count.txt\n");
  });

  it("the prompt shows the example whole, the existing tasks and the documents", () => {
    const prompt = buildTerminalDesignerPrompt([{ id: "d1", title: "grep", text: "grep -c counts lines" }], FILES, ["config-file: Create /app/config/app.ini"]);
    const user = prompt.messages[1]?.content ?? "";
    expect(user).toContain("```bash tests/test.sh");
    expect(user).toContain("config-file: Create");
    expect(user).toContain("grep: grep -c counts lines");
    expect(prompt.corpusDocumentIds).toEqual(["d1"]);
  });
});
