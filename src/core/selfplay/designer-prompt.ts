import { createHash } from "node:crypto";
import type { ChatMessage, CorpusDocument, EnvPackage } from "../../spec/index.js";

/** A Designer prompt with what it was built from. */
export interface DesignerPrompt {
  readonly messages: readonly ChatMessage[];
  /** sha256 of the messages (hex), stored in provenance. */
  readonly hash: string;
  readonly corpusDocumentIds: readonly string[];
  /** Names of the memory environments shown as examples. */
  readonly exampleNames: readonly string[];
}

const SYSTEM = `You are the Designer. You write new training environments for a language-model agent.
An environment is a Python 3 program (standard library only) with one class that has
reset(self, seed) -> str (the first observation: the task statement with the exact answer format) and
step(self, action) -> (observation: str, reward: float, terminated: bool, truncated: bool, info: dict).
All randomness comes from random.Random(seed). Full success gives a total reward of 1.0; an empty or wrong answer gives 0.
When step cannot read the action in the task's format (or the move is not allowed), it changes nothing and sets info["invalid_action"] = True.
You also write oracle.py with act(env, observation) -> str, a reference policy that may read the env's attributes and always reaches reward 1.0,
and a hint: advice that helps the agent but does not reveal the answer.`;

const FORMAT = `Reply with exactly three fenced blocks and nothing else:
\`\`\`json
{"name": "kebab-case-name", "title": "...", "description": "...", "maxTurns": 1, "hint": "...", "skills": ["..."], "scenario": "..."}
\`\`\`
\`\`\`python
# env.py
...
\`\`\`
\`\`\`python
# oracle.py
def act(env, observation):
    ...
\`\`\``;

/**
 * Builds the Designer prompt (SPADE corpus grounding): k corpus documents as
 * inspiration, m environments from memory as worked examples of the package
 * format, and the reply format the parser expects.
 *
 * @param documents corpus documents to ground the design (k of them)
 * @param examples environments from memory, best first (m of them)
 */
export function buildDesignerPrompt(documents: readonly CorpusDocument[], examples: readonly EnvPackage[]): DesignerPrompt {
  const parts: string[] = [];
  for (const example of examples) {
    const { name, title, description, maxTurns, hint, skills, scenario } = example.manifest;
    parts.push(
      `Example environment "${name}":`,
      "```json",
      JSON.stringify({ name, title, description, maxTurns, hint, skills, scenario }),
      "```",
      "```python",
      `# env.py\n${example.envSource.trim()}`,
      "```",
      "```python",
      `# oracle.py\n${example.oracleSource.trim()}`,
      "```",
      "",
    );
  }
  if (documents.length > 0) {
    parts.push("Reference material to base the new task on:");
    for (const document of documents) parts.push(`- ${document.title ? `${document.title}: ` : ""}${document.text}`);
    parts.push("");
  }
  parts.push(
    "Write a NEW environment, different from the example, built on the reference material. Make it checkable: the env computes the correct answer itself and compares.",
    FORMAT,
  );
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: parts.join("\n") },
  ];
  return {
    messages,
    hash: createHash("sha256").update(JSON.stringify(messages)).digest("hex"),
    corpusDocumentIds: documents.map((document) => document.id),
    exampleNames: examples.map((example) => example.manifest.name),
  };
}
