import type { Policy } from "../../rollout/index.js";
import { TASK_COMPLETE } from "../../terminal/terminal-actions.js";

/** The agent that does nothing: it says the task is done at once. Tests it passes check nothing. */
export const finishAtOncePolicy: Policy = {
  name: "finish-at-once",
  async act() {
    return { text: TASK_COMPLETE };
  },
};

/** Absolute paths an instruction names (files and folders the agent is told about). */
export function instructionPaths(instruction: string): string[] {
  return [...new Set([...instruction.matchAll(/(?:^|[\s`'"(])(\/[\w.-]+(?:\/[\w.-]+)*)/g)].map((match) => (match[1] as string).replace(/[.,:;]+$/, "")))];
}

/**
 * A seeded agent that runs `commands` harmless commands drawn from listing and reading what the
 * instruction names (`ls -la`, `cat`, `head`, `wc -l`, `pwd`, `echo` into /tmp), then says it is
 * done. Tests this agent passes do not check the task's work. `random` returns [0, 1).
 */
export function randomCommandsPolicy(instruction: string, random: () => number, commands = 5): Policy {
  const paths = instructionPaths(instruction);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const makers: ((path: string) => string)[] = [(path) => `ls -la ${path}`, (path) => `cat ${path}`, (path) => `head -n 5 ${path}`, (path) => `wc -l ${path}`, () => "pwd", () => `echo ${Math.floor(random() * 1000)} > /tmp/note`];
  let sent = 0;
  return {
    name: "random-commands",
    async act() {
      if (sent >= commands) return { text: TASK_COMPLETE };
      sent += 1;
      const command = pick(makers)(paths.length > 0 ? pick(paths) : "/");
      return { text: `\`\`\`bash\n${command}\n\`\`\`` };
    },
  };
}
