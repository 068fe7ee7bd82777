import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { Template } from "@huggingface/jinja";
import { ModelRequestError, type ChatMessage, type ToolDefinition } from "../../spec/index.js";

/**
 * envforge's chat template for models that carry none (the embedded Gemma 3 GGUF): the Gemma turn
 * format, tools in Qwen2.5's wording. The reference trainer renders the same file (its
 * `chat_prompt`), so the embedded engine, the local tokenizer and the trainer agree.
 */
export const GEMMA_FALLBACK_TEMPLATE = resolve(dirname(fileURLToPath(import.meta.url)), "../../../trainer/envforge_trainer/gemma_turns.jinja");

/**
 * A model's chat template (Jinja, as in transformers' `apply_chat_template`), compiled once by
 * `@huggingface/jinja`. One renderer for every place envforge turns a chat into a prompt itself:
 * the trainer's local tokenizer (`LocalChatTokenizer`) and the embedded llama.cpp provider when
 * a chat carries tools (the GGUF's own template, `tokenizer.chat_template`).
 */
export class ChatTemplate {
  private constructor(
    private readonly template: Template,
    /** Whether the template reads `tools` at all (Qwen2.5's, Llama 3.1's, Hermes' do; Gemma 3's does not). */
    readonly rendersTools: boolean,
    /** Where the template came from, for messages (a file, a GGUF key). */
    readonly from: string,
  ) {}

  /**
   * Compiles `text`.
   * @throws Error (with the parser's message) when the template does not parse
   */
  static compile(text: string, from: string): ChatTemplate {
    return new ChatTemplate(new Template(text), /\btools\b/.test(text), from);
  }

  /**
   * The prompt text of `messages` ending with an open assistant turn, as transformers'
   * `apply_chat_template(messages, tools=tools, add_generation_prompt=True)` renders it: `tools`
   * in the OpenAI shape the templates expect (`{"type": "function", "function": {...}}`), null
   * without tools; `documents` null; the named special tokens as given (`bos_token`, …).
   *
   * @param specialTokens template variables such as `{ bos_token: "<bos>" }`
   * @throws ModelRequestError (not retryable) when tools are given and the template does not render
   *   them, or the template refuses the messages (e.g. `raise_exception` for roles out of order)
   */
  render(messages: readonly ChatMessage[], tools: readonly ToolDefinition[] | undefined, specialTokens: Readonly<Record<string, string>>): string {
    const withTools = tools !== undefined && tools.length > 0;
    if (withTools && !this.rendersTools) {
      throw new ModelRequestError(
        `the chat template of ${this.from} does not render tools, so the model would not see a tool environment's tools; ` +
          "use a model whose template does (Qwen2.5, Llama 3.1, Hermes), or the embedded Gemma fallback template",
      );
    }
    try {
      return this.template.render({
        ...specialTokens,
        messages: messages.map((message) => ({ role: message.role, content: message.content })),
        tools: withTools ? tools.map((tool) => ({ type: "function", function: tool })) : null,
        documents: null,
        add_generation_prompt: true,
      });
    } catch (error) {
      throw new ModelRequestError(`the chat template of ${this.from} refused the messages: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }
}
