import { designCompletion } from "./scripted-model.js";
import type { ChatMessage, EnvPackage } from "../spec/index.js";

// Fixtures shared by the evolution tests (not shipped in the public API).

/** A parent environment: reply 42 for reward 1. */
export const PARENT: EnvPackage = {
  manifest: {
    schemaVersion: 1,
    name: "answer-42",
    title: "Answer 42",
    description: "Reply with 42.",
    interaction: "single-turn",
    maxTurns: 1,
    rewardRange: [0, 1],
    passThreshold: 1,
    hint: "Multiply six by seven to get it.",
    skills: ["recall"],
    scenario: "quiz",
    difficulty: {},
    provenance: { origin: "seed", parentId: null, generation: 0, designerModel: null, promptHash: null, corpusDocumentIds: [], createdAt: "2026-11-29T00:00:00.000Z" },
  },
  envSource: [
    "class Answer:",
    "    def reset(self, seed):",
    "        self.done = False",
    "        return 'Reply with 42.'",
    "",
    "    def step(self, action):",
    "        self.done = True",
    "        return ('done', 1.0 if action.strip() == '42' else 0.0, True, False, {})",
    "",
  ].join("\n"),
  oracleSource: "def act(env, observation):\n    return '42'\n",
};

/** A working child env: add two seeded numbers. */
export const SUM_ENV = [
  "import random",
  "",
  "class Sum:",
  "    def reset(self, seed):",
  "        rng = random.Random(seed)",
  "        self.a, self.b = rng.randint(1, 99), rng.randint(1, 99)",
  "        return f'Reply with {self.a} + {self.b}.'",
  "",
  "    def step(self, action):",
  "        right = action.strip() == str(self.a + self.b)",
  "        return ('done', 1.0 if right else 0.0, True, False, {})",
  "",
].join("\n");

/** The oracle of {@link SUM_ENV}. */
export const SUM_ORACLE = "def act(env, observation):\n    return str(env.a + env.b)\n";

/** A Modifier reply with full files and manifest changes. */
export function filesReply(envSource: string, oracleSource: string, manifest: Record<string, unknown> = { title: "Add two numbers", description: "Reply with the sum.", skills: ["addition"], scenario: "arithmetic quiz" }): string {
  return designCompletion(manifest, envSource, oracleSource);
}

/** A plan reply of the Proposer. */
export function planReply(steps: readonly { scenario: string; skill: string }[], summary = "replace recall by addition"): string {
  return `Here is the plan:\n\`\`\`json\n${JSON.stringify({ summary, steps })}\n\`\`\``;
}

/**
 * A SCRIPTED Proposer reply (control-flow tests only) that follows the prompt's
 * direction and span mechanically, so it passes `plan-check`: it reads the
 * "Current sequence" lines and the "Change only step(s) …" sentence, then inserts
 * a new step after the span (LENGTH) or renames the span's first scenario
 * (SCENARIO) or skill (SKILL), suffixed with `tag` so plans differ.
 */
export function spanPlanReply(messages: readonly ChatMessage[], tag: string): string {
  const prompt = messages.at(-1)?.content ?? "";
  const sequence = [...prompt.matchAll(/^\d+\. (\{"scenario".*\})$/gm)].map((match) => JSON.parse(match[1] as string) as { scenario: string; skill: string });
  const range = /Change only steps? (\d+)(?: to (\d+))?\./.exec(prompt);
  const start = range === null ? 0 : Number(range[1]) - 1;
  const end = range === null ? sequence.length : Number(range[2] ?? range[1]);
  const steps = sequence.map((step) => ({ ...step }));
  if (/Direction LENGTH/.test(prompt)) steps.splice(end, 0, { scenario: `follow-up ${tag}`, skill: `combine results ${tag}` });
  else if (/Direction SCENARIO/.test(prompt)) (steps[start] as { scenario: string }).scenario = `rare situation ${tag}`;
  else (steps[start] as { skill: string }).skill = `rare skill ${tag}`;
  return planReply(steps, `plan ${tag}`);
}

/** Reviewer replies. */
export const PASS = '{"verdict": "pass"}';
export function rejectReply(feedback: string): string {
  return JSON.stringify({ verdict: "reject", feedback });
}
