import type { ChatMessage, GenerateOptions, Generation, LanguageModel } from "../spec/index.js";

/** A scripted reply: text, an Error to throw, or a function of the prompt. */
export type ScriptedReply = string | Error | ((messages: readonly ChatMessage[]) => string);

/**
 * A SCRIPTED FAKE language model for unit tests of the evolution loops'
 * control flow only; it models nothing. Each prompt is routed by the role its
 * system message names (`You are the Proposer.` → `proposer`; also `analyst`,
 * `reviewer`, `modifier`; anything else → `agent`), and gets the next reply
 * scripted for that role; the last reply repeats when the script runs out
 * (an empty script answers ""). Tests that need real model behaviour use the
 * embedded model.
 */
export class ScriptedRoleModel implements LanguageModel {
  readonly id = "scripted-fake";
  /** Prompts received, by role, in order. */
  readonly prompts = new Map<string, ChatMessage[][]>();
  private readonly used = new Map<string, number>();

  constructor(private readonly script: Readonly<Record<string, readonly ScriptedReply[]>>) {}

  async generate(messages: readonly ChatMessage[], _options: GenerateOptions): Promise<Generation> {
    const role = /^You are the (\w+)/.exec(messages[0]?.content ?? "")?.[1]?.toLowerCase() ?? "agent";
    const key = ["analyst", "proposer", "reviewer", "modifier"].includes(role) ? role : "agent";
    this.prompts.set(key, [...(this.prompts.get(key) ?? []), [...messages]]);
    const replies = this.script[key] ?? [];
    const index = this.used.get(key) ?? 0;
    this.used.set(key, index + 1);
    const reply = replies[Math.min(index, replies.length - 1)];
    if (reply instanceof Error) throw reply;
    const text = typeof reply === "function" ? reply(messages) : (reply ?? "");
    return { text, finishReason: "stop" };
  }

  /** Prompts received by `role`. */
  promptsOf(role: string): ChatMessage[][] {
    return this.prompts.get(role) ?? [];
  }

  async close(): Promise<void> {}
}
