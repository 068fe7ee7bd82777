import { createHash } from "node:crypto";
import type { ChatMessage, CorpusDocument } from "../../spec/index.js";
import type { TaskFiles } from "./parse-terminal-design.js";

/**
 * A terminal Designer prompt with what it was built from. The rule on COPY was added after
 * Qwen2.5-Coder-1.5B's first eight designs: six of them copied files they never wrote
 * (docs/benchmarks/terminal.md, "Terminal Designer yield").
 */
export interface TerminalDesignerPrompt {
  readonly messages: readonly ChatMessage[];
  /** sha256 of the messages (hex). */
  readonly hash: string;
  readonly corpusDocumentIds: readonly string[];
}

const SYSTEM = "You are the Designer. You write new terminal tasks for a language-model agent: the agent solves a task by running shell commands in a small Debian machine, and a test script checks the result.";

const FORMAT = `Write ONE new task as five fenced blocks, each naming its file after the language:
\`\`\`toml task.toml        limits and [metadata] (difficulty, category, tags, hint: advice that helps without giving the answer)
\`\`\`markdown instruction.md   what the agent must do: exact paths, exact output format
\`\`\`dockerfile environment/Dockerfile   FROM debian:bookworm-slim; WORKDIR; COPY data files; RUN commands that prepare the machine (no network: no pip, curl, wget)
\`\`\`bash tests/test.sh     checks the agent's work and writes 1 (pass) or 0 (fail) to /logs/verifier/reward.txt
\`\`\`bash solution/solve.sh  a script that solves the task
Every file or folder the Dockerfile COPYs must be one of your blocks, e.g. \`\`\`text environment/data.csv for COPY data.csv /app/data.csv; a COPY of anything you did not write fails the task. Small data can instead be made with RUN, e.g. RUN printf 'a,1\\nb,2\\n' > /app/data.csv.
Rules: the machine has bash, coreutils, grep, sed, mawk, find, tar, gzip (no python). The tests must fail before the agent acts (check the agent's output, not only that files exist) and must not pass by reading files only. Keep data files short (under 60 lines).`;

/** One task folder as the blocks of {@link FORMAT}. */
export function renderTaskFiles(files: TaskFiles): string {
  const language = (path: string) => (path.endsWith(".toml") ? "toml" : path.endsWith(".md") ? "markdown" : path.endsWith("Dockerfile") ? "dockerfile" : path.endsWith(".sh") ? "bash" : "text");
  const order = (path: string) => ["task.toml", "instruction.md", "environment/Dockerfile"].indexOf(path);
  const paths = Object.keys(files).sort((a, b) => {
    const rank = (path: string) => (order(path) >= 0 ? order(path) : path.startsWith("environment/") ? 3 : path.startsWith("tests/") ? 4 : 5);
    return rank(a) - rank(b) || a.localeCompare(b);
  });
  return paths.map((path) => `\`\`\`${language(path)} ${path}\n${(files[path] as string).trimEnd()}\n\`\`\``).join("\n");
}

/**
 * The terminal Designer's prompt: the format, one worked example (a seed task folder, shown
 * whole), the titles of tasks that exist, and `documents` as reference material (the corpus,
 * as for environment programs).
 *
 * @param example the worked example's files (a seed written by envforge's authors, not model output)
 * @param existing titles (or names) of the tasks the new one must differ from
 */
export function buildTerminalDesignerPrompt(documents: readonly CorpusDocument[], example: TaskFiles, existing: readonly string[]): TerminalDesignerPrompt {
  const parts = [FORMAT, "", "Example of the format (a different task):", renderTaskFiles(example), ""];
  if (existing.length > 0) parts.push("Tasks that already exist (write something different):", ...existing.map((name) => `- ${name}`), "");
  if (documents.length > 0) parts.push("Reference material to base the new task on:", ...documents.map((document) => `- ${document.title ? `${document.title}: ` : ""}${document.text}`), "");
  parts.push("Write a NEW task built on the reference material, different from the example. Reply with the five blocks (and any data files) only.");
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: parts.join("\n") },
  ];
  return { messages, hash: createHash("sha256").update(JSON.stringify(messages)).digest("hex"), corpusDocumentIds: documents.map((document) => document.id) };
}
