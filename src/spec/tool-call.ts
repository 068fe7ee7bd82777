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
