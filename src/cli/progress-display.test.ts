import { describe, expect, it } from "vitest";
import { createEvolutionProgress } from "./evolution-progress.js";
import { createProgressDisplay } from "./progress-display.js";

/** A non-terminal stream that keeps what is written. */
function captured(): { stream: NodeJS.WriteStream; text: () => string } {
  const chunks: string[] = [];
  const stream = { isTTY: false, write: (chunk: string) => chunks.push(chunk) > 0 } as unknown as NodeJS.WriteStream;
  return { stream, text: () => chunks.join("") };
}

describe("progress displays", () => {
  it("print untrusted details and notices with their control characters escaped", () => {
    const run = captured();
    const display = createProgressDisplay(run.stream);
    display.phaseStarted?.(1, "designer", 1);
    display.unitDone?.(1, "designer", "rejected: RuntimeError: \u001b]0;owned\u0007\u001b[2J");
    display.notice?.("env says \u009b31m hi");
    display.unitProgress?.(1, "designer", "design 0 attempt 1: rejected by executable: \u001b[2J");
    expect(run.text()).toContain("rejected: RuntimeError: \\x1b]0;owned\\x07\\x1b[2J\n");
    expect(run.text()).toContain("env says \\x9b31m hi\n");
    expect(run.text()).toContain("[round 1] designer design 0 attempt 1: rejected by executable: \\x1b[2J\n");
    expect(run.text()).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/u);
    const evolve = captured();
    createEvolutionProgress(1, () => undefined, evolve.stream).notice?.("\u001b[2Jcleared");
    expect(evolve.text()).toBe("\\x1b[2Jcleared\n");
  });
});
