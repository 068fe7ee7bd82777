/**
 * The Solver's side of a terminal environment: how a reply becomes a shell command, and the reply
 * format the first observation states. Close to Terminus (the Terminal-Bench agent), in plain text:
 * one fenced shell block per reply, and a word that says the task is done.
 * @module
 */

/** The word a reply holds to end the episode (the tests then run). */
export const TASK_COMPLETE = "TASK_COMPLETE";

/** How a terminal reply reads. */
export type TerminalAction =
  /** Run `command`; `done` when the reply also says the task is complete (the tests run after it). */
  | { readonly kind: "command"; readonly command: string; readonly done: boolean }
  /** The agent says the task is complete. */
  | { readonly kind: "done" }
  /** Neither a command block nor the completion word: refused, the episode goes on. */
  | { readonly kind: "invalid"; readonly message: string };

/** The reply format, as the first observation states it. */
export const TERMINAL_REPLY_FORMAT =
  `Reply with one shell command (it may span several lines) in a \`\`\`bash code block. It runs in a persistent bash shell in the task's machine (no network), and you see its output. When the task is done, reply ${TASK_COMPLETE}.`;

const FENCE = /```[ \t]*(?:bash|sh|shell|console|zsh)?[ \t]*\r?\n([\s\S]*?)```/i;

/**
 * Reads a reply: its first fenced code block (```bash, ```sh or a bare fence) is the command;
 * {@link TASK_COMPLETE} anywhere ends the episode (after the command, when there is one). Leading
 * `$ ` prompts are dropped from the command. Never throws.
 */
export function parseTerminalReply(reply: string): TerminalAction {
  const done = reply.includes(TASK_COMPLETE);
  const fenced = FENCE.exec(reply);
  if (fenced !== null) {
    const command = (fenced[1] as string)
      .split("\n")
      .map((line) => line.replace(/^\$ /, ""))
      .join("\n")
      .trim();
    if (command !== "" && command !== TASK_COMPLETE) return { kind: "command", command, done };
  }
  if (done) return { kind: "done" };
  return { kind: "invalid", message: `no command found. ${TERMINAL_REPLY_FORMAT}` };
}
