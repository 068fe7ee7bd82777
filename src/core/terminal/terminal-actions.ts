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

/**
 * The reply format, as the first observation states it: commands only. Small models repeat the
 * last rule they read: with the completion word in the first observation, the 0.5B replied
 * TASK_COMPLETE at once in 16 of 16 episodes, whether the word came last or before an example
 * (docs/benchmarks/terminal.md, "Solver on the terminal seeds"). The word is offered from the
 * second turn on, in {@link TERMINAL_NEXT_REPLY}.
 */
export const TERMINAL_REPLY_FORMAT = [
  "You are at a bash prompt in the task's machine (no network). Each reply is exactly one shell command (it may span several lines) in a ```bash code block; you then see its output.",
  "Example of a reply:",
  "```bash",
  "ls -la",
  "```",
].join("\n");

/** The line after each command's output: the next command, or the completion word. */
export const TERMINAL_NEXT_REPLY = `Reply with the next command in a \`\`\`bash block, or ${TASK_COMPLETE} when the task is done.`;

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
  return { kind: "invalid", message: `No command found. ${TERMINAL_NEXT_REPLY}` };
}
