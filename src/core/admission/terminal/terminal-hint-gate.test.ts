import { describe, expect, it } from "vitest";
import { readHarborTask } from "../../../adapters/terminal/harbor-task.js";
import type { TerminalRuntime, TerminalTask } from "../../../spec/index.js";
import { solutionCommands, terminalHintGate } from "./terminal-hint-gate.js";

const SEED = readHarborTask("envs/terminal-seeds/config-file") as TerminalTask;
const FIXTURES = "fixtures/broken-terminal-tasks";
/** The hint gate plays nothing: a runtime that refuses every call proves it. */
const NO_RUNTIME: TerminalRuntime = {
  open: async () => {
    throw new Error("the hint gate must not open a root");
  },
  close: async () => {},
};
const context = { runtime: NO_RUNTIME, settings: { textSimilarity: 0.8, hintMinChars: 20, hintMaxChars: 1000 } };
const withHint = (hint: unknown): TerminalTask => ({ ...SEED, metadata: { ...SEED.metadata, hint } });

describe("terminal hint gate", () => {
  it("passes the seed, whose hint advises without a line of solve.sh", async () => {
    expect(await terminalHintGate().check(SEED, context)).toMatchObject({ status: "pass", gate: "hint" });
  });

  it("passes a task without a hint (Harbor tasks need not carry one)", async () => {
    expect(await terminalHintGate().check(withHint(undefined), context)).toMatchObject({ status: "pass", evidence: { hint: null } });
    expect(await terminalHintGate().check(withHint("   "), context)).toMatchObject({ status: "pass" });
  });

  it("rejects the fixtures: a hint under hintMinChars, and one that spells out solve.sh's first command", async () => {
    const short = readHarborTask(`${FIXTURES}/hint-too-short`) as TerminalTask;
    expect(await terminalHintGate().check(short, context)).toMatchObject({ status: "reject", reason: "hint_length" });
    const leak = readHarborTask(`${FIXTURES}/hint-gives-solution`) as TerminalTask;
    const verdict = await terminalHintGate().check(leak, context);
    expect(verdict).toMatchObject({ status: "reject", reason: "hint_leaks_answer", evidence: { answer: "cat > /app/config/app.ini <<'END'", match: "literal" } });
  });

  it("finds a solution line in the hint normalised (case and punctuation changed)", async () => {
    const task = { ...withHint("Advice: CAT /app/config/app.ini <<END, then type the lines the task lists."), solution: "#!/bin/bash\ncat > /app/config/app.ini <<'END'\nEND\n" };
    expect(await terminalHintGate().check(task, context)).toMatchObject({ status: "reject", reason: "hint_leaks_answer", evidence: { match: "normalised" } });
  });

  it("keeps a solution line whole: a here-document line `timeout: 30` is not the value 30", async () => {
    const task = { ...withHint("Allow the service 30 seconds to start before you check it."), solution: "#!/bin/bash\ncat > /app/svc.yaml <<'END'\ntimeout: 30\nEND\n" };
    expect(await terminalHintGate().check(task, context)).toMatchObject({ status: "pass" });
  });

  it("leaves shell syntax and comments out of the solution lines it looks for", () => {
    expect(solutionCommands("#!/bin/bash\n# write it\nset -e\nfi\ncat > /app/x <<'END'\nEND\n")).toEqual(["cat > /app/x <<'END'"]);
  });
});
