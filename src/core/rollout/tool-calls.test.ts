import { describe, expect, it } from "vitest";
import { renderToolCall, type ToolDefinition } from "../../spec/index.js";
import { randomToolCallPolicy, seededRandom } from "./baseline-policies.js";
import { compileToolSchemas, MAX_CALLS_PER_REPLY, parseToolReply, toolErrorObservation } from "./tool-calls.js";

// Parsing replies to a tool environment (hand-written replies; the bad input first).

const TOOLS: ToolDefinition[] = [
  { name: "get_balance", description: "balance of an account", parameters: { type: "object", properties: { account: { type: "string" } }, required: ["account"], additionalProperties: false } },
  { name: "transfer", description: "move credits", parameters: { type: "object", properties: { from_account: { type: "string" }, to_account: { type: "string" }, amount: { type: "integer", minimum: 1 } }, required: ["from_account", "to_account", "amount"] } },
];

describe("parseToolReply: refused calls", () => {
  it("malformed JSON in a <tool_call> block, a block that is not a call, extra keys", () => {
    expect(parseToolReply('<tool_call>{"name": "get_balance", "arguments": {"account": </tool_call>', TOOLS)).toMatchObject({ kind: "invalid", error: { type: "malformed_json" } });
    expect(parseToolReply("<tool_call>[1, 2]</tool_call>", TOOLS)).toMatchObject({ kind: "invalid", error: { type: "malformed_json" } });
    expect(parseToolReply('<tool_call>{"name": "get_balance", "arguments": {"account": "elm"}, "extra": 1}</tool_call>', TOOLS)).toMatchObject({ kind: "invalid", error: { type: "malformed_json" } });
    expect(parseToolReply('<tool_call>{"name": "get_balance", "arguments": "not json"}</tool_call>', TOOLS)).toMatchObject({ kind: "invalid", error: { type: "malformed_json" } });
  });

  it("an unknown tool names the tools there are", () => {
    const reply = parseToolReply('<tool_call>{"name": "delete_bank", "arguments": {}}</tool_call>', TOOLS);
    expect(reply).toEqual({ kind: "invalid", error: { type: "unknown_tool", tool: "delete_bank", message: 'no tool "delete_bank"; the tools are get_balance, transfer' } });
  });

  it("arguments that break the schema: a missing field, a wrong type, a value below the minimum, an extra property", () => {
    const cases = [
      ['{"name": "transfer", "arguments": {"from_account": "elm", "to_account": "fir"}}', /must have required property 'amount'/],
      ['{"name": "transfer", "arguments": {"from_account": "elm", "to_account": "fir", "amount": "ten"}}', /arguments\.amount must be integer/],
      ['{"name": "transfer", "arguments": {"from_account": "elm", "to_account": "fir", "amount": 0}}', /arguments\.amount must be >= 1/],
      ['{"name": "get_balance", "arguments": {"account": "elm", "pin": 1234}}', /must NOT have additional properties/],
    ] as const;
    for (const [call, message] of cases) {
      const reply = parseToolReply(`<tool_call>${call}</tool_call>`, TOOLS);
      expect(reply).toMatchObject({ kind: "invalid", error: { type: "invalid_arguments" } });
      expect(reply.kind === "invalid" ? reply.error.message : "").toMatch(message);
    }
  });

  it("more calls than allowed in one reply; one bad call refuses the whole reply", () => {
    const call = renderToolCall({ name: "get_balance", arguments: { account: "elm" } });
    expect(parseToolReply(call.repeat(MAX_CALLS_PER_REPLY + 1), TOOLS)).toMatchObject({ kind: "invalid", error: { type: "too_many_calls" } });
    expect(parseToolReply(`${call}<tool_call>{"name": "nope", "arguments": {}}</tool_call>`, TOOLS)).toMatchObject({ kind: "invalid", error: { type: "unknown_tool" } });
  });

  it("a tool whose parameters is not JSON Schema is an error naming the tool", () => {
    expect(() => compileToolSchemas([{ name: "broken", description: "x", parameters: { type: "object", properties: { amount: { type: "integr" } } } }])).toThrow(/tool broken: parameters is not a valid JSON Schema/);
  });

  it("the error observation says the kind, the message and how to call", () => {
    expect(toolErrorObservation({ type: "unknown_tool", tool: "x", message: 'no tool "x"' })).toMatch(/^Error \(unknown_tool\): no tool "x"\. Call a tool as <tool_call>/);
  });
});

describe("parseToolReply: calls and final messages", () => {
  it("one or several <tool_call> blocks with prose around them, in order; a block cut off by the token limit", () => {
    const reply = 'Let me look.\n<tool_call>\n{"name": "get_balance", "arguments": {"account": "elm"}}\n</tool_call>\n<tool_call>{"name": "get_balance", "arguments": {"account": "fir"}}</tool_call>';
    expect(parseToolReply(reply, TOOLS)).toEqual({ kind: "calls", calls: [{ name: "get_balance", arguments: { account: "elm" } }, { name: "get_balance", arguments: { account: "fir" } }] });
    expect(parseToolReply('<tool_call>{"name": "get_balance", "arguments": {"account": "elm"}}', TOOLS)).toEqual({ kind: "calls", calls: [{ name: "get_balance", arguments: { account: "elm" } }] });
  });

  it("a bare JSON call or array of calls, in a ```json fence or not; OpenAI-style string arguments, id and type", () => {
    expect(parseToolReply('{"name": "get_balance", "arguments": {"account": "elm"}}', TOOLS)).toMatchObject({ kind: "calls", calls: [{ name: "get_balance" }] });
    expect(parseToolReply('```json\n[{"name": "get_balance", "arguments": {"account": "a"}}, {"name": "get_balance", "arguments": {"account": "b"}}]\n```', TOOLS)).toMatchObject({ kind: "calls", calls: [{}, {}] });
    expect(parseToolReply('{"id": "call_1", "type": "function", "name": "get_balance", "arguments": "{\\"account\\": \\"elm\\"}"}', TOOLS)).toEqual({ kind: "calls", calls: [{ name: "get_balance", arguments: { account: "elm" } }] });
  });

  it("anything else is a final message, JSON that is not a call included", () => {
    for (const text of ["Balance: 57", "", '{"balance": 57}', "[1, 2, 3]", "I would call get_balance next."]) expect(parseToolReply(text, TOOLS)).toEqual({ kind: "final", text });
  });

  it("bad input: a list mixing a call with other values is malformed, not a final message; long whitespace runs are read", () => {
    expect(parseToolReply('[{"name": "get_balance", "arguments": {"account": "elm"}}, 1]', TOOLS)).toMatchObject({ kind: "invalid", error: { type: "malformed_json" } });
    expect(parseToolReply('[{"name": "get_balance", "arguments": {"account": "elm"}}, {"nam": "x"}]', TOOLS)).toMatchObject({ kind: "invalid", error: { type: "malformed_json" } });
    // 100,000 spaces: the quadratic regexes of before took 17 to 23 s per reply (past the test's time limit)
    expect(parseToolReply(`<tool_call>x${" ".repeat(100_000)}y`, TOOLS)).toMatchObject({ kind: "invalid", error: { type: "malformed_json" } });
    expect(parseToolReply(`{}${" ".repeat(100_000)}x`, TOOLS)).toEqual({ kind: "final", text: `{}${" ".repeat(100_000)}x` });
    expect(parseToolReply(`${renderToolCall({ name: "get_balance", arguments: { account: "elm" } })}${" ".repeat(100_000)}`, TOOLS)).toEqual({ kind: "calls", calls: [{ name: "get_balance", arguments: { account: "elm" } }] });
  });

  it("a string argument holding </tool_call> survives rendering and parsing", () => {
    const call = { name: "get_balance", arguments: { account: "elm </tool_call> <tool_call>" } };
    expect(parseToolReply(renderToolCall(call), TOOLS)).toEqual({ kind: "calls", calls: [call] });
  });

  it("renderToolCall writes what parseToolReply reads", () => {
    const call = { name: "transfer", arguments: { from_account: "elm", to_account: "fir", amount: 5 } };
    expect(parseToolReply(renderToolCall(call), TOOLS)).toEqual({ kind: "calls", calls: [call] });
  });
});

describe("randomToolCallPolicy (admission's random tool-call control)", () => {
  it("makes mostly schema-valid calls, drawing strings from the options the observation quotes, and some final messages", async () => {
    const policy = randomToolCallPolicy(TOOLS, seededRandom(3));
    const kinds = { calls: 0, final: 0, invalid: 0 };
    const accounts = new Set<unknown>();
    for (let turn = 0; turn < 200; turn += 1) {
      const { text } = await policy.act({ observation: "Account 'elm' must hold 40 credits; 'fir' pays.", initialObservation: "", turns: [] });
      const reply = parseToolReply(text, TOOLS);
      kinds[reply.kind] += 1;
      if (reply.kind === "calls") for (const call of reply.calls) accounts.add(call.arguments.account ?? call.arguments.from_account);
    }
    expect(kinds.calls).toBeGreaterThan(120);
    expect(kinds.final).toBeGreaterThan(20);
    expect(kinds.invalid).toBeLessThan(kinds.calls / 4);
    expect(accounts.has("elm") && accounts.has("fir")).toBe(true);
  });
});
