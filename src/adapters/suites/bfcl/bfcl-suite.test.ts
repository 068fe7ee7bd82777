import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { playEpisode, compileToolSchemas, type Policy } from "../../../core/rollout/index.js";
import { renderToolCall, SuiteError, type ToolCall } from "../../../spec/index.js";
import { BFCL_BRIDGE, BFCL_STEP_LIMIT, BFCL_VENV_PYTHON, BfclSession, bfclPackages } from "./bfcl-suite.js";

// The real BFCL v4 data, executor and checker (bfcl-eval 2026.3.23 in .venv-bfcl, set up by ./scripts/setup.sh).
// The policies below are scripted (control flow only): one replays BFCL's own ground truth for multi_turn_base_0
// (possible_answer/BFCL_v4_multi_turn_base.json, written as calls), one never calls a tool.

/** BFCL's ground truth of multi_turn_base_0, per user turn. */
const GROUND_TRUTH: readonly (readonly ToolCall[])[] = [
  [
    { name: "cd", arguments: { folder: "document" } },
    { name: "mkdir", arguments: { dir_name: "temp" } },
    { name: "mv", arguments: { source: "final_report.pdf", destination: "temp" } },
  ],
  [
    { name: "cd", arguments: { folder: "temp" } },
    { name: "grep", arguments: { file_name: "final_report.pdf", pattern: "budget analysis" } },
  ],
  [{ name: "sort", arguments: { file_name: "final_report.pdf" } }],
  [
    { name: "cd", arguments: { folder: ".." } },
    { name: "mv", arguments: { source: "previous_report.pdf", destination: "temp" } },
    { name: "cd", arguments: { folder: "temp" } },
    { name: "diff", arguments: { file_name1: "final_report.pdf", file_name2: "previous_report.pdf" } },
  ],
];

/** Replays `turns`: each call as a Solver's <tool_call> reply, then a final message to end the user turn. */
function replay(turns: readonly (readonly ToolCall[])[]): Policy {
  const replies = turns.flatMap((calls) => [...calls.map((call) => renderToolCall(call)), "Done."]);
  return { name: "replay", act: async ({ turns: played }) => ({ text: replies[played.length] ?? "Done." }) };
}

describe("BFCL v4 multi-turn suite (real bfcl-eval)", () => {
  const sessions: BfclSession[] = [];
  afterAll(async () => {
    await Promise.all(sessions.map((session) => session.close()));
  });

  it("lists entries as tool packages: JSON Schema tools, 21 steps per user turn, the entry named", async () => {
    const packages = await bfclPackages(["multi_turn_base", "multi_turn_long_context"], 2);
    expect(packages.map((pkg) => pkg.bfcl?.id)).toEqual(["multi_turn_base_0", "multi_turn_base_1", "multi_turn_long_context_0", "multi_turn_long_context_1"]);
    for (const pkg of packages) {
      expect(pkg.manifest.tools?.length).toBeGreaterThan(0);
      expect(() => compileToolSchemas(pkg.manifest.tools ?? [])).not.toThrow();
      expect(pkg.manifest.maxTurns).toBe((pkg.bfcl?.turns ?? 0) * (BFCL_STEP_LIMIT + 1));
      expect(pkg.manifest.name).toMatch(/^bfcl-multi-turn-/);
    }
  });

  it("plays an entry through the episode loop: BFCL's ground truth wins, a Solver that never calls loses", async () => {
    const [pkg] = await bfclPackages(["multi_turn_base"], 1);
    if (pkg?.bfcl === undefined) throw new Error("no entry listed");
    const session = new BfclSession(pkg.bfcl);
    sessions.push(session);
    const won = await playEpisode(session, pkg.manifest, 0, replay(GROUND_TRUTH));
    expect(won.won).toBe(true);
    expect(won.return).toBe(1);
    expect(won.turns.filter((turn) => turn.toolCalls === 1)).toHaveLength(10);
    expect(won.turns.at(-1)?.observation).toMatch(/multi_turn_checker: valid/);
    const lost = await playEpisode(session, pkg.manifest, 0, replay([]));
    expect(lost.won).toBe(false);
    expect(lost.turns).toHaveLength(pkg.bfcl.turns);
    expect(lost.turns.at(-1)?.observation).toMatch(/empty_turn_model_response/);
  });

  it("a lower step limit force-quits a turn after that many steps: the entry fails unscored", async () => {
    const [pkg] = await bfclPackages(["multi_turn_base"], 1, 0, { stepLimit: 2 });
    if (pkg?.bfcl === undefined) throw new Error("no entry listed");
    expect(pkg.manifest.maxTurns).toBe(pkg.bfcl.turns * 3);
    const session = new BfclSession(pkg.bfcl, { stepLimit: 2 });
    sessions.push(session);
    const looping: Policy = { name: "loop", act: async () => ({ text: renderToolCall({ name: "pwd", arguments: {} }) }) };
    const episode = await playEpisode(session, pkg.manifest, 0, looping);
    expect(episode.turns).toHaveLength(3);
    expect(episode.truncated).toBe(true);
    expect(episode.won).toBe(false);
    expect(episode.turns.at(-1)?.observation).toMatch(/^Model has been forced to quit after 2 steps\. .*force_terminated/);
  });

  it("bad input: an unknown tool and broken arguments never reach BFCL; BFCL's own errors come back as observations", async () => {
    const [pkg] = await bfclPackages(["multi_turn_base"], 1);
    if (pkg?.bfcl === undefined) throw new Error("no entry listed");
    const session = new BfclSession(pkg.bfcl);
    sessions.push(session);
    const replies = [
      '<tool_call>{"name": "open", "arguments": {"file": "/etc/passwd"}}</tool_call>',
      '<tool_call>{"name": "cd", "arguments": {"folder": 3}}</tool_call>',
      '<tool_call>{"name": "cd", "arguments": {"folder": "nowhere"}}</tool_call>',
      `<tool_call>{"name": "cd", "arguments": {"folder": "${"x".repeat(20_000)}"}}</tool_call>`,
    ];
    const policy: Policy = { name: "bad", act: async ({ turns }) => ({ text: replies[turns.length] ?? "Done." }) };
    const episode = await playEpisode(session, { ...pkg.manifest, maxTurns: 4 }, 0, policy);
    expect(episode.turns.map((turn) => turn.toolError ?? "ran")).toEqual(["unknown_tool", "invalid_arguments", "ran", "ran"]);
    expect(episode.turns[2]?.observation).toMatch(/No such file or directory/);
    // BFCL echoes the 20,000-character name: the observation is cut, and says so
    expect(episode.turns[3]?.observation.length).toBeLessThan(8100);
    expect(episode.turns[3]?.observation).toMatch(/\[observation truncated at 8000 characters\]$/);
  });

  it("the bridge's own self-test passes: BFCL's ground truth scores 1 in every category, the step limit, errors as answers, the recorded exchange", () => {
    const result = spawnSync(BFCL_VENV_PYTHON, [join(dirname(BFCL_BRIDGE), "test_bridge_selftest.py")], { encoding: "utf8", timeout: 240_000 });
    expect(result.stdout).toMatch(/\n9 passed, 0 failed\n$/);
    expect(result.status).toBe(0);
  }, 250_000);

  it("refuses an unknown category and names a missing interpreter with the fix", async () => {
    await expect(bfclPackages(["simple_python"], 1)).rejects.toThrow(/unknown_category/);
    const missing = await bfclPackages(["multi_turn_base"], 1, 0, { python: "/nonexistent/python" }).catch((error: unknown) => error);
    expect(missing).toBeInstanceOf(SuiteError);
    expect((missing as SuiteError).code).toBe("suite_unavailable");
    expect((missing as Error).message).toMatch(/setup\.sh/);
  });
});
