import { describe, expect, it } from "vitest";
import type { ChatMessage, GenerateOptions, Generation, LanguageModel, Turn } from "../../spec/index.js";
import type { PolicyContext } from "../rollout/index.js";
import { DEFAULT_HISTORY_CHARS, MAX_ACTION_CHARS, SOLVER_ANSWER_INSTRUCTION, SOLVER_INSTRUCTION, SOLVER_TOOL_INSTRUCTION, solverMessages, solverPolicy } from "./solver-policy.js";

const INSTRUCTION = "Reply with your next action only, in the exact format the task asks for.";
const FIRST = `You stand at the start.\n\n${INSTRUCTION}`;

/**
 * A SCRIPTED FAKE language model, for control flow only: it returns the
 * generations it was given, in order, and records every request.
 */
class ScriptedGenerations implements LanguageModel {
  readonly id = "scripted-fake";
  readonly requests: { messages: readonly ChatMessage[]; options: GenerateOptions }[] = [];

  constructor(private readonly generations: readonly (Generation | Error)[]) {}

  async generate(messages: readonly ChatMessage[], options: GenerateOptions): Promise<Generation> {
    const next = this.generations[this.requests.length];
    this.requests.push({ messages, options });
    if (next === undefined) throw new Error("the script has no more generations");
    if (next instanceof Error) throw next;
    return next;
  }

  async close(): Promise<void> {}
}

function turns(count: number): Turn[] {
  return Array.from({ length: count }, (_, index) => ({ action: `action ${index + 1}`, observation: `observation ${index + 1}`, reward: 0 }));
}

function context(played: readonly Turn[]): PolicyContext {
  return { initialObservation: "You stand at the start.", observation: played.at(-1)?.observation ?? "You stand at the start.", turns: played };
}

const options = { hint: null, maxTokens: 64, temperature: 0.7, seed: 100 } as const;

describe("solverMessages", () => {
  it("opens with the first observation followed by the instruction, with no system message", () => {
    expect(solverMessages(context([]), { hint: null })).toEqual([{ role: "user", content: FIRST }]);
    expect(SOLVER_INSTRUCTION).toBe(INSTRUCTION);
  });

  it("shows the hint between the observation and the instruction only when there is one", () => {
    const [withHint] = solverMessages(context([]), { hint: "Go left twice." });
    expect(withHint).toEqual({ role: "user", content: `You stand at the start.\n\nHint: Go left twice.\n${INSTRUCTION}` });
    const [withoutHint] = solverMessages(context([]), { hint: null });
    expect(withoutHint?.content).not.toContain("Hint");
  });

  it("replays each turn as the assistant's action followed by the user's observation", () => {
    const messages = solverMessages(context(turns(2)), { hint: null });
    expect(messages).toEqual([
      { role: "user", content: FIRST },
      { role: "assistant", content: "action 1" },
      { role: "user", content: "observation 1" },
      { role: "assistant", content: "action 2" },
      { role: "user", content: "observation 2" },
    ]);
  });

  it("alternates user and assistant, starting and ending on a user message", () => {
    for (const count of [0, 1, 3, 6, 7, 20]) {
      const messages = solverMessages(context(turns(count)), { hint: "h" });
      messages.forEach((message, index) => expect(message.role).toBe(index % 2 === 0 ? "user" : "assistant"));
      expect(messages.at(-1)?.role).toBe("user");
    }
  });

  it("keeps the first message the same at every turn while the history fits, so the prompts extend each other", () => {
    const early = solverMessages(context(turns(1)), { hint: "h" });
    const later = solverMessages(context(turns(4)), { hint: "h" });
    expect(later.slice(0, early.length)).toEqual(early);
  });

  it("keeps the last six turns by default and says how many earlier turns were left out", () => {
    const messages = solverMessages(context(turns(8)), { hint: null });
    expect(messages).toHaveLength(1 + 2 * 6);
    expect(messages[0]).toEqual({ role: "user", content: `You stand at the start.\n[2 earlier turns omitted]\n\n${INSTRUCTION}` });
    expect(messages[1]).toEqual({ role: "assistant", content: "action 3" });
    expect(messages.at(-1)).toEqual({ role: "user", content: "observation 8" });
  });

  it("shows all turns without a note when they fit the history", () => {
    const messages = solverMessages(context(turns(6)), { hint: null });
    expect(messages).toHaveLength(1 + 2 * 6);
    expect(messages[0]?.content).toBe(FIRST);
  });

  it("honours a custom history length", () => {
    const messages = solverMessages(context(turns(5)), { hint: null, historyTurns: 2 });
    expect(messages.map((message) => message.content)).toEqual([
      `You stand at the start.\n[3 earlier turns omitted]\n\n${INSTRUCTION}`,
      "action 4",
      "observation 4",
      "action 5",
      "observation 5",
    ]);
  });

  it("drops the oldest turns until the rest fit historyChars, and says so", () => {
    const long = (index: number): Turn => ({ action: `ls ${index}`, observation: `${"x".repeat(1500)} ${index}`, reward: 0 });
    const played = [long(1), long(2), long(3), long(4), long(5)];
    const messages = solverMessages(context(played), { hint: null, historyChars: 4000 });
    // each turn is about 1,500 characters: two fit in 4,000, the third would not
    expect(messages.map((message) => message.content.slice(-8))).toEqual([`omitted]\n\n${INSTRUCTION}`.slice(-8), "ls 4", "xxxxxx 4", "ls 5", "xxxxxx 5"]);
    expect(messages[0]?.content).toContain("[3 earlier turns omitted]");
  });

  it("cuts one observation longer than historyChars in the middle, keeping its head and tail and saying how much was cut", () => {
    const output = `${"a".repeat(5000)}${"b".repeat(5000)}`;
    const messages = solverMessages(context([{ action: "cat big.log", observation: output, reward: 0 }]), { hint: null, historyChars: 1000 });
    const shown = messages.at(-1)?.content ?? "";
    expect(shown.length).toBeLessThanOrEqual(1000);
    expect(shown.startsWith("aaaa")).toBe(true);
    expect(shown.endsWith("bbbb")).toBe(true);
    expect(shown).toMatch(/\[… \d+ characters cut from this observation …\]/);
    const cut = Number(/\[… (\d+) characters cut/.exec(shown)?.[1]);
    expect(shown.replace(/\n\[….*…\]\n/, "").length + cut).toBe(output.length);
  });

  it("by default keeps about 6,000 characters of history (DEFAULT_HISTORY_CHARS)", () => {
    const messages = solverMessages(context([{ action: "cat big.log", observation: "z".repeat(20_000), reward: 0 }]), { hint: null });
    expect(messages.at(-1)?.content.length).toBeLessThanOrEqual(DEFAULT_HISTORY_CHARS);
    expect(DEFAULT_HISTORY_CHARS).toBe(6000);
  });

  it('shows an empty action as "(no action)"', () => {
    const played: Turn[] = [{ action: "", observation: "Nothing happened.", reward: 0 }];
    expect(solverMessages(context(played), { hint: null })[1]).toEqual({ role: "assistant", content: "(no action)" });
  });
});

describe("solverPolicy (scripted fake model)", () => {
  it("is named after its hint condition", () => {
    const model = new ScriptedGenerations([]);
    expect(solverPolicy(model, options).name).toBe("solver");
    expect(solverPolicy(model, { ...options, hint: "Go left." }).name).toBe("solver+hint");
  });

  it("sends the solver chat with the sampling options and seed = base + turn index", async () => {
    const model = new ScriptedGenerations([{ text: "left", finishReason: "stop" }]);
    const played = turns(3);
    await solverPolicy(model, { ...options, hint: "Go left." }).act(context(played));
    expect(model.requests).toHaveLength(1);
    expect(model.requests[0]?.options).toEqual({ maxTokens: 64, temperature: 0.7, seed: 103 });
    expect(model.requests[0]?.messages).toEqual(solverMessages(context(played), { hint: "Go left." }));
  });

  it("uses the base seed on the first turn", async () => {
    const model = new ScriptedGenerations([{ text: "left", finishReason: "stop" }]);
    await solverPolicy(model, options).act(context([]));
    expect(model.requests[0]?.options.seed).toBe(100);
  });

  it("passes the policy's history length to the prompt", async () => {
    const model = new ScriptedGenerations([{ text: "left", finishReason: "stop" }]);
    await solverPolicy(model, { ...options, historyTurns: 1 }).act(context(turns(4)));
    expect(model.requests[0]?.messages[0]?.content).toBe(`You stand at the start.\n[3 earlier turns omitted]\n\n${INSTRUCTION}`);
  });

  it("trims the action text", async () => {
    const model = new ScriptedGenerations([{ text: "  \n 42 \n\t", finishReason: "stop" }]);
    expect(await solverPolicy(model, options).act(context([]))).toEqual({ text: "42" });
  });

  it("caps the action at MAX_ACTION_CHARS after trimming", async () => {
    const model = new ScriptedGenerations([{ text: `   ${"y".repeat(MAX_ACTION_CHARS + 500)}`, finishReason: "length" }]);
    const action = await solverPolicy(model, options).act(context([]));
    expect(MAX_ACTION_CHARS).toBe(2000);
    expect(action.text).toBe("y".repeat(MAX_ACTION_CHARS));
  });

  it("passes tokens and logprobs through when the model gives them", async () => {
    const model = new ScriptedGenerations([{ text: " 42", tokens: [17, 23], logprobs: [-0.1, -0.2], finishReason: "stop" }]);
    expect(await solverPolicy(model, options).act(context([]))).toEqual({ text: "42", tokens: [17, 23], logprobs: [-0.1, -0.2] });
  });

  it("leaves tokens and logprobs out when the model does not give them", async () => {
    const model = new ScriptedGenerations([{ text: "42", finishReason: "stop" }]);
    const action = await solverPolicy(model, options).act(context([]));
    expect(action).not.toHaveProperty("tokens");
    expect(action).not.toHaveProperty("logprobs");
  });

  it("answer format: asks for reasoning then <answer>, acts with the last answer's content, and keeps the whole reply's tokens", async () => {
    const reply = { text: "7 + 5 = 12, and <answer>11</answer> was a slip, so <answer> 12 </answer>", tokens: [1, 2, 3, 4], logprobs: [-0.1, -0.2, -0.3, -0.4], finishReason: "stop" } as const;
    const model = new ScriptedGenerations([reply]);
    const action = await solverPolicy(model, { ...options, format: "answer" }).act(context([]));
    expect(action).toEqual({ text: "12", tokens: [1, 2, 3, 4], logprobs: [-0.1, -0.2, -0.3, -0.4] });
    expect(model.requests[0]?.messages).toEqual([{ role: "user", content: `You stand at the start.\n\n${SOLVER_ANSWER_INSTRUCTION}` }]);
  });

  it("answer format: a reply without <answer> or \\boxed{} is an empty action (the environment flags it invalid); \\boxed{} counts", async () => {
    const model = new ScriptedGenerations([
      { text: "I think the answer is 12", finishReason: "length" },
      { text: "so \\boxed{12}", finishReason: "stop" },
    ]);
    const policy = solverPolicy(model, { ...options, format: "answer" });
    expect((await policy.act(context([]))).text).toBe("");
    expect((await policy.act(context([]))).text).toBe("12");
  });

  it("lets a model error propagate, so the episode ends as a policy error", async () => {
    const model = new ScriptedGenerations([new Error("server down")]);
    await expect(solverPolicy(model, options).act(context([]))).rejects.toThrow("server down");
  });
});

describe("the Solver in a tool environment", () => {
  const tools = [{ name: "get_balance", description: "One balance.", parameters: { type: "object", properties: { account: { type: "string" } }, required: ["account"] } }];
  const played: Turn[] = [
    { action: '<tool_call>\n{"name": "get_balance", "arguments": {"account": "elm"}}\n</tool_call>', observation: "'elm' holds 41 credits.", reward: 0, toolCalls: 1 },
    { action: '<tool_call>{"name": "get_balance"}</tool_call>', observation: "Error (invalid_arguments): get_balance: arguments must have required property 'account'.", reward: 0, invalidAction: true, toolError: "invalid_arguments" },
  ];

  it("sends the tools with the chat, gives a call's result back as a tool message and a refused call's error as the user's", async () => {
    const model = new ScriptedGenerations([{ text: "  <answer>ignored</answer> Balance: 41 ", finishReason: "stop" }]);
    const action = await solverPolicy(model, { ...options, format: "answer" }).act({ ...context(played), tools });
    const request = model.requests[0];
    expect(request?.options.tools).toEqual(tools);
    expect(request?.messages.map((message) => message.role)).toEqual(["user", "assistant", "tool", "assistant", "user"]);
    expect(request?.messages[0]?.content.endsWith(SOLVER_TOOL_INSTRUCTION)).toBe(true);
    expect(request?.messages[2]?.content).toBe("'elm' holds 41 credits.");
    // in a tool environment the whole reply is the action, whatever the format (its tool-call markup is the action)
    expect(action.text).toBe("<answer>ignored</answer> Balance: 41");
  });

  it("a text environment sends no tools and keeps every observation the user's", async () => {
    const model = new ScriptedGenerations([{ text: "go", finishReason: "stop" }]);
    await solverPolicy(model, options).act(context(turns(2)));
    expect(model.requests[0]?.options.tools).toBeUndefined();
    expect(model.requests[0]?.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant", "user"]);
  });
});
