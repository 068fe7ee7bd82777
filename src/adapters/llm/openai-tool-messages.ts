import type OpenAI from "openai";
import { renderToolCall, TOOL_CALL_BLOCK, type ChatMessage, type ToolDefinition } from "../../spec/index.js";

type ApiMessage = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ApiToolCall = OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;

/** What a `tool` message stands for when the assistant made several calls: the whole observation goes to the first call's id. */
export const SHARED_RESULT_NOTE = "(this call's result is in the tool message above)";

/** `tools` as the chat completions API defines them: `{ type: "function", function: {name, description, parameters} }`. */
export function toApiTools(tools: readonly ToolDefinition[]): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return tools.map((tool) => ({ type: "function", function: { name: tool.name, description: tool.description, parameters: tool.parameters } }));
}

/**
 * envforge's chat as chat completions messages. An assistant message's `<tool_call>` blocks
 * become its `tool_calls` (ids `call_<message>_<call>`; the text around them stays `content`; a
 * block whose JSON does not parse stays text), and a `tool` message answers the calls of the
 * assistant message before it: the observation under the first call's id, {@link SHARED_RESULT_NOTE}
 * under the others' (an environment step answers all the calls of one reply in one observation).
 * A `tool` message after an assistant message without calls is sent as the user's.
 */
export function toApiMessages(messages: readonly ChatMessage[]): ApiMessage[] {
  const out: ApiMessage[] = [];
  let pendingIds: string[] = [];
  for (const [index, message] of messages.entries()) {
    if (message.role === "tool") {
      if (pendingIds.length === 0) {
        out.push({ role: "user", content: message.content });
        continue;
      }
      pendingIds.forEach((id, call) => out.push({ role: "tool", tool_call_id: id, content: call === 0 ? message.content : SHARED_RESULT_NOTE }));
      pendingIds = [];
      continue;
    }
    pendingIds = [];
    if (message.role !== "assistant") {
      out.push({ role: message.role, content: message.content });
      continue;
    }
    const calls = callsOf(message.content, index);
    if (calls.calls.length === 0) {
      out.push({ role: "assistant", content: message.content });
      continue;
    }
    pendingIds = calls.calls.map((call) => call.id);
    out.push({ role: "assistant", content: calls.text === "" ? null : calls.text, tool_calls: calls.calls });
  }
  return out;
}

/** A completion's text with its API `tool_calls` appended as `<tool_call>` markup, so a reply is one text whatever the backend. */
export function replyText(message: OpenAI.Chat.Completions.ChatCompletionMessage): string {
  const calls = (message.tool_calls ?? []).flatMap((call) => (call.type === "function" ? [call] : []));
  const rendered = calls.map((call) => {
    const args = parse(call.function.arguments);
    if (typeof args === "object" && args !== null && !Array.isArray(args)) return renderToolCall({ name: call.function.name, arguments: args as Record<string, unknown> });
    // arguments that are not a JSON object go as a JSON string of what was sent: the reply parser refuses the call
    // (malformed_json), and nothing in them can close the block or add a call
    return renderToolCall({ name: call.function.name, arguments: call.function.arguments as unknown as Record<string, unknown> });
  });
  return [message.content ?? "", ...rendered].filter((part) => part !== "").join("\n");
}

function callsOf(text: string, message: number): { text: string; calls: ApiToolCall[] } {
  const calls: ApiToolCall[] = [];
  const rest = text.replace(TOOL_CALL_BLOCK, (block: string, json: string) => {
    const parsed = parse(json);
    if (typeof parsed !== "object" || parsed === null || typeof (parsed as { name?: unknown }).name !== "string") return block;
    const { name, arguments: args } = parsed as { name: string; arguments?: unknown };
    // the API sends arguments as a JSON string
    calls.push({ id: `call_${message}_${calls.length}`, type: "function", function: { name, arguments: typeof args === "string" ? args : JSON.stringify(args ?? {}) } });
    return "";
  });
  return { text: rest.trim(), calls };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
