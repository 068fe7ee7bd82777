import { Ajv, type ValidateFunction } from "ajv";
import { TOOL_CALL_BLOCK, type ToolCall, type ToolCallErrorType, type ToolDefinition } from "../../spec/index.js";


/** Most tool calls one reply may make. */
export const MAX_CALLS_PER_REPLY = 8;

/** A refused tool call: the kind, the tool when known, and a message the agent can act on. */
export interface ToolCallError {
  readonly type: ToolCallErrorType;
  readonly tool?: string;
  readonly message: string;
}

/**
 * A reply to a tool environment, parsed: tool calls (each valid against its tool's schema), a
 * final message (no call in it), or an invalid call (the whole reply is refused).
 */
export type ToolReply =
  | { readonly kind: "calls"; readonly calls: readonly ToolCall[] }
  | { readonly kind: "final"; readonly text: string }
  | { readonly kind: "invalid"; readonly error: ToolCallError };

/** A reply that starts as a JSON call (a `{` or `[`, optionally fenced, then a `"name"` key): a call attempt even when it does not parse, e.g. cut by the token limit. */
const ATTEMPTED_CALL = /^[[{][\s\S]*?"name"\s*:/;

const validators = new WeakMap<readonly ToolDefinition[], Map<string, ValidateFunction>>();

/**
 * Compiles each tool's `parameters` as JSON Schema (Ajv, draft 2020-12 keywords that Ajv's
 * default draft-07 mode accepts; formats are not checked).
 * @throws Error naming the tool when a schema is not valid JSON Schema (admission's static gate turns it into a verdict)
 */
export function compileToolSchemas(tools: readonly ToolDefinition[]): Map<string, ValidateFunction> {
  const known = validators.get(tools);
  if (known !== undefined) return known;
  const ajv = new Ajv({ allErrors: false, strict: false, validateFormats: false });
  const compiled = new Map<string, ValidateFunction>();
  for (const tool of tools) {
    try {
      compiled.set(tool.name, ajv.compile(tool.parameters));
    } catch (error) {
      throw new Error(`tool ${tool.name}: parameters is not a valid JSON Schema: ${(error as Error).message}`);
    }
  }
  validators.set(tools, compiled);
  return compiled;
}

/**
 * Why a tool environment's tools cannot be used (a `parameters` that is not JSON Schema), or null when they can
 * (or the environment has none): what loaders check before an episode would fail on the first reply.
 */
export function toolSchemaProblem(tools: readonly ToolDefinition[] | undefined): string | null {
  if (tools === undefined) return null;
  try {
    compileToolSchemas(tools);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Parses an agent's reply to a tool environment. Tool calls are `<tool_call>{"name": ...,
 * "arguments": {...}}</tool_call>` blocks (one or more; `arguments` may also be a JSON string,
 * as OpenAI's API sends it), or a reply that is only such a JSON object or an array of them
 * (a reply that starts as one but does not parse, e.g. cut by the token limit, is `malformed_json`);
 * anything else is a final message. A call is refused, and with it the whole reply, when its
 * JSON does not parse (`malformed_json`), it names no declared tool (`unknown_tool`), its
 * arguments break the tool's schema (`invalid_arguments`), or the reply makes more than
 * {@link MAX_CALLS_PER_REPLY} calls (`too_many_calls`).
 *
 * @throws Error when a tool's schema is not valid JSON Schema (see {@link compileToolSchemas})
 */
export function parseToolReply(reply: string, tools: readonly ToolDefinition[]): ToolReply {
  const blocks = [...reply.matchAll(TOOL_CALL_BLOCK)].map((match) => (match[1] ?? "").trim());
  let raw: unknown[];
  if (blocks.length > 0) {
    raw = [];
    for (const block of blocks) {
      const parsed = parseJson(block);
      if (parsed === undefined) return invalid("malformed_json", `a <tool_call> block is not JSON: ${JSON.stringify(block.slice(0, 120))}`);
      raw.push(parsed);
    }
  } else {
    const body = unfenced(reply);
    const parsed = /^[[{]/.test(body) && /[\]}]$/.test(body) ? parseJson(body) : undefined;
    if (parsed === undefined && ATTEMPTED_CALL.test(body)) return invalid("malformed_json", `the reply starts as a JSON tool call but is not JSON: ${JSON.stringify(body.slice(0, 120))}`);
    const calls = Array.isArray(parsed) ? parsed : parsed === undefined ? [] : [parsed];
    const isCall = (call: unknown) => typeof call === "object" && call !== null && "name" in call;
    if (calls.length === 0 || !calls.some(isCall)) return { kind: "final", text: reply };
    // a list that mixes calls with other values is a malformed attempt, not a final message
    if (!calls.every(isCall)) return invalid("malformed_json", `a list of tool calls holds something that is not a call: ${JSON.stringify(body.slice(0, 120))}`);
    raw = calls;
  }
  if (raw.length > MAX_CALLS_PER_REPLY) return invalid("too_many_calls", `${raw.length} tool calls in one reply; at most ${MAX_CALLS_PER_REPLY}`);
  const compiled = compileToolSchemas(tools);
  const calls: ToolCall[] = [];
  for (const item of raw) {
    const call = asCall(item);
    if (call === null) return invalid("malformed_json", `a tool call must be {"name": <tool>, "arguments": {...}}, not ${JSON.stringify(item).slice(0, 120)}`);
    const validate = compiled.get(call.name);
    if (validate === undefined) return invalid("unknown_tool", `no tool ${JSON.stringify(call.name.slice(0, 64))}; the tools are ${tools.map((tool) => tool.name).join(", ")}`, call.name);
    if (!validate(call.arguments)) {
      const problems = (validate.errors ?? []).map((error) => `${error.instancePath === "" ? "arguments" : `arguments${error.instancePath.replace(/\//g, ".")}`} ${error.message ?? "is invalid"}`);
      return invalid("invalid_arguments", `${call.name}: ${problems.join("; ") || "the arguments break its schema"}`, call.name);
    }
    calls.push(call);
  }
  return { kind: "calls", calls };
}

/** The observation an agent gets for a refused call: the error's kind and message, and how to call. */
export function toolErrorObservation(error: ToolCallError): string {
  return `Error (${error.type}): ${error.message}. Call a tool as <tool_call>{"name": "<tool>", "arguments": {...}}</tool_call>, or reply with a final message.`;
}

function asCall(item: unknown): ToolCall | null {
  if (typeof item !== "object" || item === null || Array.isArray(item)) return null;
  // OpenAI-style calls also carry an id and a type; nothing else is part of a call
  const { name, arguments: args, id: _id, type: _type, ...rest } = item as { name?: unknown; arguments?: unknown; id?: unknown; type?: unknown };
  if (typeof name !== "string" || Object.keys(rest).length > 0) return null;
  const parsedArgs = typeof args === "string" ? parseJson(args) : (args ?? {});
  if (typeof parsedArgs !== "object" || parsedArgs === null || Array.isArray(parsedArgs)) return null;
  return { name, arguments: parsedArgs as Record<string, unknown> };
}

/** A reply that is only a JSON value, optionally in a ```json fence, without the fence and the whitespace around it (string operations: no backtracking on long replies). */
function unfenced(reply: string): string {
  let body = reply.trim();
  if (body.startsWith("```")) {
    body = body.slice(3);
    if (body.startsWith("json")) body = body.slice(4);
    if (body.endsWith("```")) body = body.slice(0, -3);
    body = body.trim();
  }
  return body;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function invalid(type: ToolCallErrorType, message: string, tool?: string): ToolReply {
  return { kind: "invalid", error: { type, message, ...(tool === undefined ? {} : { tool }) } };
}
