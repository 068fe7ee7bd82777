import type { ChatMessage, GenerateOptions, Generation, LanguageModel } from "../spec/index.js";

/**
 * A SCRIPTED FAKE language model for unit tests of control flow only. It does
 * not model anything: Designer prompts get the next completion from `designs`
 * (a string is returned, an Error is thrown), and Solver prompts get
 * `solve(messages)`. Tests that need real model behaviour use the embedded model.
 */
export class ScriptedModel implements LanguageModel {
  readonly id = "scripted-fake";
  readonly prompts: ChatMessage[][] = [];
  private designIndex = 0;

  constructor(
    private readonly designs: readonly (string | Error)[],
    private readonly solve: (messages: readonly ChatMessage[]) => string = () => "",
  ) {}

  async generate(messages: readonly ChatMessage[], _options: GenerateOptions): Promise<Generation> {
    this.prompts.push([...messages]);
    if (messages[0]?.content.startsWith("You are the Designer")) {
      const next = this.designs[this.designIndex % this.designs.length];
      this.designIndex += 1;
      if (next instanceof Error) throw next;
      return { text: next ?? "", finishReason: "stop" };
    }
    return { text: this.solve(messages), finishReason: "stop" };
  }

  async close(): Promise<void> {}
}

/** Formats a Designer completion the way the prompt asks (three fenced blocks). */
export function designCompletion(manifest: Record<string, unknown>, envSource: string, oracleSource: string): string {
  return [
    "Here is my environment.",
    "```json",
    JSON.stringify(manifest),
    "```",
    "```python",
    `# env.py\n${envSource}`,
    "```",
    "```python",
    `# oracle.py\n${oracleSource}`,
    "```",
  ].join("\n");
}

/** Test fixture: an environment whose answer is always 42; the hint says so indirectly. */
export const SECRET_42: { readonly manifest: Record<string, unknown>; readonly env: string; readonly oracle: string } = {
  manifest: {
    name: "secret-number",
    title: "Say the secret number",
    description: "Reply with the secret number; reward 1 when it is right.",
    maxTurns: 1,
    hint: "The secret is six times seven.",
    skills: ["arithmetic"],
    scenario: "quiz",
  },
  env: [
    "import random",
    "",
    "class SecretNumber:",
    "    def reset(self, seed):",
    "        self.rng = random.Random(seed)",
    "        self.done = False",
    "        return f'Puzzle {self.rng.randint(1, 10**6)}: reply with the secret number.'",
    "",
    "    def step(self, action):",
    "        if self.done:",
    "            return ('over', 0.0, True, False, {})",
    "        self.done = True",
    "        right = action.strip() == '42'",
    "        return ('correct' if right else 'wrong', 1.0 if right else 0.0, True, False, {'correct': right})",
  ].join("\n"),
  oracle: "def act(env, observation):\n    return '42'\n",
};

/** Solver behaviour for {@link SECRET_42}: answers right only when a hint is in the system prompt. */
export function answersWithHintOnly(messages: readonly ChatMessage[]): string {
  return messages[0]?.content.includes("Hint:") ? "42" : "7";
}
