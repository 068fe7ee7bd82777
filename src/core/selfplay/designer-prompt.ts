import { createHash } from "node:crypto";
import type { ChatMessage, CorpusDocument, EnvPackage } from "../../spec/index.js";
import { authoredSource, isScaffoldOracle } from "../scaffold/index.js";
import { parseDesign } from "./parse-design.js";

/**
 * The reply format the Designer is asked for: `scaffold` (one Python block with
 * `generate`, `render`, `solve` and the manifest as constants; `core/scaffold`),
 * `class` (manifest JSON, a free-form `env.py` class and `oracle.py`), or `tool`
 * (the `class` format for a tool-use environment: the JSON declares the tools, `step`
 * receives tool calls, the oracle answers calls; SPADE's second domain).
 */
export type DesignFormat = "scaffold" | "class" | "tool";

/** A Designer prompt with what it was built from. */
export interface DesignerPrompt {
  readonly messages: readonly ChatMessage[];
  /** sha256 of the messages (hex), stored in provenance. */
  readonly hash: string;
  readonly corpusDocumentIds: readonly string[];
  /** Names of the memory environments shown as examples. */
  readonly exampleNames: readonly string[];
  /** The reply format asked for. */
  readonly format: DesignFormat;
  /** Index in {@link SCAFFOLD_EXAMPLES} of the built-in example the prompt shows (it then joins the novelty pool: {@link promptExamplePackages}); null when it shows none. */
  readonly builtInExample: number | null;
}

const CLASS_SYSTEM = `You are the Designer. You write new training environments for a language-model agent.
An environment is a Python 3 program (standard library only) with one class that has
reset(self, seed) -> str (the first observation: the task statement with the exact answer format) and
step(self, action) -> (observation: str, reward: float, terminated: bool, truncated: bool, info: dict).
All randomness comes from random.Random(seed). Full success gives a total reward of 1.0; an empty or wrong answer gives 0.
When step cannot read the action in the task's format (or the move is not allowed), it changes nothing and sets info["invalid_action"] = True.
You also write oracle.py with act(env, observation) -> str, a reference policy that may read the env's attributes and always reaches reward 1.0,
and a hint: advice that helps the agent but does not reveal the answer.
Optionally the environment is a family of levels: reset(self, seed, level=0) builds an instance at level 0 (tiny) up to count - 1 (large),
declared in the JSON as "levels": {"count": 6, "description": "what a higher level changes"}; envforge admits it at the level the agent can partly solve.`;

/** The three-block reply format of the `class` and `tool` formats, around the manifest JSON each shows. */
function threeBlocks(manifestJson: string): string {
  return `Reply with exactly three fenced blocks and nothing else:
\`\`\`json
${manifestJson}
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
}

const FORMAT = threeBlocks('{"name": "kebab-case-name", "title": "...", "description": "...", "maxTurns": 1, "hint": "...", "skills": ["..."], "scenario": "..."}');

const TOOL_SYSTEM = `You are the Designer. You write new tool-use training environments for a language-model agent: a small stateful API
behind a few tools, and a task the agent can only finish by calling them across several turns.
An environment is a Python 3 program (standard library only) with one class that has
reset(self, seed, level=0) -> str (the first observation: the goal, the tool names and the format of the final message) and
step(self, action) -> (observation: str, reward: float, terminated: bool, truncated: bool, info: dict).
step receives either a tool call, a dict {"name": "<tool>", "arguments": {...}} whose arguments already match the tool's JSON Schema,
or the agent's final message, a str. A call changes or reads the hidden state and returns its result as the observation with reward 0.0;
a call the state does not allow (an unknown id, too little stock) returns an error text and info["invalid_action"] = True so the agent can recover.
The final message ends the episode: reward 1.0 when the state reached the goal and the message states what the task asks, else 0.0.
The answer must depend on state only the tools reveal, so nothing can be won without calling them; cap the calls (truncated after about 12).
All randomness comes from random.Random(seed); a higher level (0 up to count - 1) adds records or steps.
You also write oracle.py with act(env, observation) that returns the next tool call (a dict) or the final message (a str);
it may read the env's attributes and always reaches reward 1.0; and a hint: advice that helps without revealing the answer.`;

const TOOL_FORMAT = threeBlocks(`{"name": "kebab-case-name", "title": "...", "description": "...", "maxTurns": 13, "hint": "...", "skills": ["tool use", "..."], "scenario": "...",
 "levels": {"count": 4, "description": "what a higher level adds"},
 "tools": [{"name": "get_item", "description": "...", "parameters": {"type": "object", "properties": {"item_id": {"type": "string"}}, "required": ["item_id"], "additionalProperties": false}}]}`);

const SCAFFOLD_SYSTEM = "You are the Designer. You write new training tasks for a language-model agent as short Python 3 programs (standard library only).";

const SCAFFOLD_FORMAT = `Write ONE new task as ONE \`\`\`python block that defines, at module level:
- NAME, TITLE, DESCRIPTION, HINT: strings (HINT is advice that helps solve the task without stating the answer)
- SKILLS: a list of strings
- generate(rng): returns a new random instance; rng is a random.Random, the only source of randomness
- render(instance): returns the task text shown to the agent; it holds everything needed to work out the answer, says the answer format, and never contains the answer
- solve(instance): returns the correct answer (a number, a word, or a list of numbers)
The agent's reply wins when it equals solve(instance). Keep each instance small (a few values) so the agent can work out the answer without a computer.
Optionally make the task a family of levels: set LEVELS = 6 (2 to 8) and LEVEL_DESCRIPTION = "what a higher level changes", and write generate(rng, level), where level runs from 0 (tiny: two or three values) to LEVELS - 1 (larger instances, more values or steps). envforge admits the task at the level the agent can partly solve and raises the level as it learns.`;

/**
 * The worked examples of the scaffolded format, shown one per prompt when memory
 * holds no scaffolded environment (the prompt's `variant` picks which): short tasks
 * written for this prompt by envforge's authors (not model output), with different
 * instance shapes (one number, a list, a name looked up in a constant) so a small
 * model sees more than one way to write `generate` and `render`. The one a prompt
 * shows joins the novelty pool of its designs, so a copy of it is rejected.
 */
export const SCAFFOLD_EXAMPLES: readonly string[] = [
  `NAME = "digit-sum"
TITLE = "Sum of digits"
DESCRIPTION = "The agent sees a number and answers with the sum of its digits."
HINT = "Add the digits one at a time from left to right."
SKILLS = ["arithmetic"]

def generate(rng):
    return {"number": rng.randint(10**5, 10**9)}

def render(instance):
    return f"What is the sum of the digits of {instance['number']}? Reply with one integer."

def solve(instance):
    return sum(int(digit) for digit in str(instance["number"]))
`,
  `NAME = "largest-gap"
TITLE = "Largest gap between neighbours"
DESCRIPTION = "The agent sees a short list of numbers and answers with the largest difference between two neighbouring numbers."
HINT = "Compare each number with the next one and keep the largest difference."
SKILLS = ["arithmetic", "lists"]

def generate(rng):
    return {"numbers": [rng.randint(1, 99) for _ in range(rng.randint(4, 7))]}

def render(instance):
    shown = ", ".join(str(number) for number in instance["numbers"])
    return f"Numbers: {shown}. What is the largest difference between two neighbouring numbers? Reply with one integer."

def solve(instance):
    numbers = instance["numbers"]
    return max(abs(left - right) for left, right in zip(numbers, numbers[1:]))
`,
  `NAME = "weekday-offset"
TITLE = "Day of the week after some days"
DESCRIPTION = "The agent is told today's weekday and a number of days and answers with the weekday that many days later."
HINT = "Only the remainder of the number of days divided by 7 matters."
SKILLS = ["modular arithmetic", "calendars"]

DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]

def generate(rng):
    return {"today": rng.randrange(7), "days": rng.randint(2, 60)}

def render(instance):
    return f"Today is {DAYS[instance['today']]}. Which day of the week is it {instance['days']} days from now? Reply with the day's name."

def solve(instance):
    return DAYS[(instance["today"] + instance["days"]) % 7]
`,
];

/**
 * Builds the Designer prompt (SPADE corpus grounding): k corpus documents as
 * inspiration, m environments from memory, and the reply format the parser
 * expects. In the `scaffold` format (the default) the memory environments are
 * listed by title as tasks to differ from, and one short worked example is shown:
 * the first scaffolded memory environment's authored code, else one of
 * {@link SCAFFOLD_EXAMPLES} picked by `variant` (whole 200-line seed classes are
 * what small models copy or stop after). In the `class` format each memory
 * environment is shown whole as a worked example of the three-block format; the
 * `tool` format does the same with tool environments (their tools in the JSON block),
 * grounded on API-shaped code (the tool corpus, `corpus/tools.jsonl`).
 *
 * @param documents corpus documents to ground the design (k of them)
 * @param examples environments from memory, best first (m of them)
 * @param format the reply format to ask for @default "scaffold"
 * @param variant which built-in example to show (taken modulo their count) @default 0
 */
export function buildDesignerPrompt(documents: readonly CorpusDocument[], examples: readonly EnvPackage[], format: DesignFormat = "scaffold", variant = 0): DesignerPrompt {
  const builtIn = format === "scaffold" && !examples.some(isScaffolded) ? variant % SCAFFOLD_EXAMPLES.length : null;
  const messages = format === "scaffold" ? scaffoldMessages(documents, examples, builtIn) : classMessages(documents, examples, format === "tool" ? TOOL_MODE : CLASS_MODE);
  return {
    messages,
    hash: createHash("sha256").update(JSON.stringify(messages)).digest("hex"),
    corpusDocumentIds: documents.map((document) => document.id),
    exampleNames: examples.map((example) => example.manifest.name),
    format,
    builtInExample: builtIn,
  };
}

const builtInPackages = new Map<number, EnvPackage>();

/**
 * The packages a prompt shows that are not in memory: its entry of
 * {@link SCAFFOLD_EXAMPLES} when it shows one, else none. The design step adds
 * them to the novelty pool, so a copy of the prompt's own example is rejected as a
 * near-duplicate.
 */
export function promptExamplePackages(prompt: Pick<DesignerPrompt, "builtInExample">): EnvPackage[] {
  const index = prompt.builtInExample;
  if (index === null) return [];
  let builtInExample = builtInPackages.get(index);
  if (builtInExample === undefined) {
    const parsed = parseDesign(`\`\`\`python\n${SCAFFOLD_EXAMPLES[index]}\`\`\``, {
      origin: "seed",
      parentId: null,
      generation: 0,
      designerModel: null,
      promptHash: null,
      corpusDocumentIds: [],
      createdAt: "2026-12-01T00:00:00.000Z",
    });
    if (!parsed.ok) throw new Error(`built-in scaffold example ${index} does not parse: ${parsed.verdict.status === "reject" ? parsed.verdict.message : ""}`);
    builtInExample = parsed.package;
    builtInPackages.set(index, builtInExample);
  }
  return [builtInExample];
}

/** Whether a package is in the scaffolded format (its oracle is the scaffold's). */
function isScaffolded(pkg: EnvPackage): boolean {
  return isScaffoldOracle(pkg.oracleSource);
}

function referenceMaterial(documents: readonly CorpusDocument[]): string[] {
  if (documents.length === 0) return [];
  return ["Reference material to base the new task on:", ...documents.map((document) => `- ${document.title ? `${document.title}: ` : ""}${document.text}`), ""];
}

function scaffoldMessages(documents: readonly CorpusDocument[], examples: readonly EnvPackage[], builtIn: number | null): ChatMessage[] {
  const worked = examples.find(isScaffolded);
  const shown = worked === undefined ? (SCAFFOLD_EXAMPLES[builtIn ?? 0] ?? "") : authoredSource(worked.envSource);
  const parts = [SCAFFOLD_FORMAT, "", "Example of the format (a different task):", "```python", shown.trim(), "```", ""];
  if (examples.length > 0) {
    parts.push("Tasks that already exist (write something different):", ...examples.map((example) => `- ${example.manifest.title}`), "");
  }
  parts.push(...referenceMaterial(documents), "Write a NEW task built on the reference material, different from the example. Reply with the python block only.");
  return [
    { role: "system", content: SCAFFOLD_SYSTEM },
    { role: "user", content: parts.join("\n") },
  ];
}

/** The system prompt, reply format and closing request of the `class` and `tool` formats. */
interface ClassMode {
  readonly system: string;
  readonly format: string;
  readonly request: string;
}

const CLASS_MODE: ClassMode = {
  system: CLASS_SYSTEM,
  format: FORMAT,
  request: "Write a NEW environment, different from the example, built on the reference material. Make it checkable: the env computes the correct answer itself and compares.",
};

const TOOL_MODE: ClassMode = {
  system: TOOL_SYSTEM,
  format: TOOL_FORMAT,
  request: "Write a NEW tool-use environment, different from the examples, whose tools model the API in the reference material. The env keeps the state, checks every call, and computes whether the final message is right.",
};

function classMessages(documents: readonly CorpusDocument[], examples: readonly EnvPackage[], mode: ClassMode): ChatMessage[] {
  const parts: string[] = [];
  for (const example of examples) {
    const { name, title, description, maxTurns, hint, skills, scenario, levels, tools } = example.manifest;
    parts.push(
      `Example environment "${name}":`,
      "```json",
      JSON.stringify({ name, title, description, maxTurns, hint, skills, scenario, ...(mode === TOOL_MODE && levels !== undefined ? { levels } : {}), ...(mode === TOOL_MODE && tools !== undefined ? { tools } : {}) }),
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
  parts.push(...referenceMaterial(documents), mode.request, mode.format);
  return [
    { role: "system", content: mode.system },
    { role: "user", content: parts.join("\n") },
  ];
}
