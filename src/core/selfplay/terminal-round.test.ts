import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../../adapters/store/index.js";
import { readHarborTask } from "../../adapters/terminal/harbor-task.js";
import { TerminalJailRuntime } from "../../adapters/terminal/terminal-jail.js";
import { NoopTrainer } from "../../adapters/trainer/index.js";
import { parseConfig } from "../../config/index.js";
import { packageId, type ChatMessage, type Sandbox, type TerminalTask } from "../../spec/index.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { ScriptedModel } from "../../testing/scripted-model.js";
import { TASK_COMPLETE, terminalPackage, withTerminalRuntime } from "../terminal/index.js";
import { runSelfPlay } from "./run-selfplay.js";

const SEED = "envs/terminal-seeds/config-file";
const scratch = mkdtempSync(join(tmpdir(), "envforge-terminal-round-"));
const runtime = new TerminalJailRuntime();
afterAll(async () => {
  await runtime.close();
  rmSync(scratch, { recursive: true, force: true });
});

/** Programs are not played here: a terminal task must never reach this sandbox. */
const NO_PROGRAMS: Sandbox = { name: "no-programs", open: async () => ({ kind: "crash", message: "an environment program reached the test's program sandbox" }), close: async () => {} };

const SOLUTION = readFileSync(join(SEED, "solution/solve.sh"), "utf8").replace(/^#!.*\n/, "");

/**
 * The Solver's replies, scripted (a test double for control flow only): with the hint it sends the
 * seed's own solution as one command and says it is done; without it, it looks around with `ls`
 * and never finishes (so the tests run at the turn cap).
 */
function solve(messages: readonly ChatMessage[]): string {
  return messages[0]?.content.includes("Hint:") ? `\`\`\`bash\n${SOLUTION}\`\`\`\n${TASK_COMPLETE}` : "```bash\nls /app\n```";
}

describe("a self-play run with a terminal task in memory (scripted Solver for control flow; real jail, store and run loop)", () => {
  it("plays the task with and without its hint in the jail, runs the tests at the turn cap, stores the episodes, and keeps the task across a reopened store", async () => {
    const seed = terminalPackage(readHarborTask(SEED) as TerminalTask, 30);
    const config = parseConfig({ rounds: 1, plays: 2, solver: { environments: 1, maxTurns: 2, maxTokens: 256 }, designer: { designs: 0 }, trainer: { backend: "noop" } });
    const storePath = join(scratch, "envforge.db");
    const store = new SqliteStore(storePath);
    const sandbox = withTerminalRuntime(NO_PROGRAMS, runtime);
    const model = new ScriptedModel([], solve);
    const result = await runSelfPlay({ config, outDir: scratch, resume: false, store, model, sandbox, trainer: new NoopTrainer(), corpus: [], seeds: [seed], gates: [], admission: testAdmissionResources() });
    const episodes = store.listEpisodes(1);
    store.close();
    expect(result.reports[0]?.solver).toMatchObject({ episodes: 4 });
    const byHint = (hint: boolean) => episodes.filter((record) => record.hint === hint).map((record) => record.episode);
    // without the hint: two `ls` commands, then the tests ran at solver.maxTurns (2) and failed
    for (const episode of byHint(false)) {
      expect(episode.turns.map((turn) => turn.action)).toEqual(["```bash\nls /app\n```", "```bash\nls /app\n```"]);
      expect(episode.turns[0]?.observation).toContain("README");
      expect(episode.turns.at(-1)?.observation).toContain("[the tests ran: reward 0]");
      expect(episode).toMatchObject({ won: false, return: 0, terminated: true });
    }
    // with the hint: the solution in one command, then the tests passed
    for (const episode of byHint(true)) {
      expect(episode.turns).toHaveLength(1);
      expect(episode.turns[0]?.observation).toContain("[the tests ran: reward 1]");
      expect(episode).toMatchObject({ won: true, return: 1, terminated: true });
    }
    // the Solver's prompt is the instruction with the reply format, then the seed's hint
    const prompt = model.prompts.find((messages) => messages[0]?.content.includes("Hint:"))?.[0]?.content ?? "";
    expect(prompt).toContain("/app/config/app.ini");
    expect(prompt).toContain(`Hint: ${String(seed.terminal?.metadata.hint)}`);
    const reopened = new SqliteStore(storePath);
    try {
      const stored = reopened.listEnvironments().find((record) => record.id === packageId(seed));
      expect(stored?.package.terminal?.folder).toBe(seed.terminal?.folder);
      expect(packageId(stored?.package ?? seed)).toBe(packageId(seed));
    } finally {
      reopened.close();
    }
  }, 240_000);
});
