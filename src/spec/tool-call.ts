import { z } from "zod";

/** Largest number of tools one environment declares. */
export const MAX_TOOLS = 32;

/**
 * One tool of a tool-use environment, as an OpenAI-style function definition: `name`
 * (`[A-Za-z_][A-Za-z0-9_-]*`, at most 64 characters), `description`, and `parameters`, a JSON
 * Schema object describing the call's arguments (checked as JSON Schema by admission).
 */
export const ToolDefinitionSchema = z
  .object({
    name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_-]{0,63}$/, "a tool name is a letter or _ then letters, digits, _ or -, at most 64 characters"),
    description: z.string().min(1).max(1000),
    parameters: z
      .record(z.string(), z.unknown())
      .refine((schema) => schema.type === "object", "parameters must be a JSON Schema with type \"object\""),
  })
  .strict();

/** A parsed {@link ToolDefinitionSchema}. */
export type ToolDefinition = z.infer<typeof ToolDefinitionSchema>;

/** One parsed tool call: the tool's name and its arguments (a JSON object). */
export interface ToolCall {
  readonly name: string;
  readonly arguments: Readonly<Record<string, unknown>>;
}

/**
 * Why a reply's tool calls were refused before reaching the environment: JSON that does not
 * parse, a tool the environment does not declare, arguments that break the tool's schema, or
 * more calls in one reply than allowed.
 */
export const TOOL_CALL_ERROR_TYPES = ["malformed_json", "unknown_tool", "invalid_arguments", "too_many_calls"] as const;

/** One of {@link TOOL_CALL_ERROR_TYPES}. */
export type ToolCallErrorType = (typeof TOOL_CALL_ERROR_TYPES)[number];

/** Whether `value` names a {@link ToolCallErrorType}. */
export function isToolCallErrorType(value: string): value is ToolCallErrorType {
  return (TOOL_CALL_ERROR_TYPES as readonly string[]).includes(value);
}

/** A call's wire shape (sandbox frames, oracle replies). */
export const ToolCallSchema = z.object({ name: z.string().min(1).max(64), arguments: z.record(z.string(), z.unknown()) }).strict();

/**
 * What an environment's `step(action)` receives: the agent's text (every text environment, and a
 * tool environment's final message), or one parsed {@link ToolCall} (a tool environment's call:
 * a Python dict `{"name": ..., "arguments": {...}}`).
 */
export type EnvAction = string | ToolCall;

/** Whether `action` is a tool call (not text). */
export function isToolCall(action: EnvAction): action is ToolCall {
  return typeof action !== "string";
}

/**
 * `<tool_call>{...}</tool_call>` blocks (Qwen2.5's and Hermes' tool-call markup, the form a tool
 * call takes in a reply's text everywhere in envforge); a block cut off by the token limit runs
 * to the end. Group 1 is the block's text, JSON with the whitespace around it (trim it); no `\s*` beside the lazy
 * group, which would make a long whitespace run quadratic.
 */
export const TOOL_CALL_BLOCK = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/g;

/** A call as the markup {@link TOOL_CALL_BLOCK} reads: `<tool_call>\n{"name": ..., "arguments": ...}\n</tool_call>` (how oracle calls and API `tool_calls` are written into replies). */
export function renderToolCall(call: ToolCall): string {
  // "<" as \u003c, so a string argument holding "</tool_call>" cannot end the block early
  return `<tool_call>\n${JSON.stringify({ name: call.name, arguments: call.arguments }).replace(/</g, "\\u003c")}\n</tool_call>`;
}
