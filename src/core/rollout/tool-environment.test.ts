import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { loadPackageFolder } from "../../adapters/package-files/index.js";
import { BwrapSandbox } from "../../adapters/sandbox/index.js";
import type { EnvSession } from "../../spec/index.js";
import { oraclePolicy } from "./baseline-policies.js";
import { playEpisode } from "./play-episode.js";
import type { Policy } from "./policy.js";
import { stepReply } from "./reply-step.js";

// A tool environment end to end in the real sandbox: envs/tool-seeds/bank-ledger (hand-written),
// its oracle's tool calls, and replies with each kind of invalid call (scripted replies: control flow).

const PKG = loadPackageFolder(fileURLToPath(new URL("../../../envs/tool-seeds/bank-ledger", import.meta.url)));
const sandbox = new BwrapSandbox({ limits: { callTimeoutMs: 5000 } });
afterAll(() => sandbox.close());

async function withSession<T>(oracle: boolean, run: (session: EnvSession) => Promise<T>): Promise<T> {
  const opened = await sandbox.open({ envSource: PKG.envSource, oracleSource: oracle ? PKG.oracleSource : null, rewardRange: PKG.manifest.rewardRange });
  if (opened.kind !== "ok") throw new Error(opened.message);
  try {
    return await run(opened.value);
  } finally {
    await opened.value.close();
  }
}

function scripted(replies: readonly string[]): Policy {
  let turn = 0;
  return { name: "scripted", act: async () => ({ text: replies[turn++] ?? "Balance: 0" }) };
}

describe("a tool environment (bank-ledger) in the sandbox", () => {
  it("the oracle's tool calls reach step() as dicts and win at every level; its transcript holds the calls as <tool_call> markup", async () => {
    for (const level of [0, 3]) {
      const episode = await withSession(true, (session) => playEpisode(session, PKG.manifest, 5, oraclePolicy(session), { level }));
      expect(episode.won).toBe(true);
      expect(episode.turns.length).toBeGreaterThanOrEqual(level >= 2 ? 3 : 2);
      expect(episode.turns.slice(0, -1).every((turn) => turn.action.startsWith("<tool_call>\n{\"name\":\"transfer\""))).toBe(true);
      expect(episode.turns.slice(0, -1).map((turn) => turn.observation)).toEqual(expect.arrayContaining([expect.stringMatching(/^Moved \d+ credits from '\w+' to '\w+'\.$/)]));
      expect(episode.turns.at(-1)?.action).toMatch(/^Balance: \d+$/);
      expect(episode.turns.some((turn) => turn.invalidAction)).toBe(false);
    }
  });

  it("refused calls are typed error observations, count as invalid actions, leave the ledger as it was, and the episode goes on", async () => {
    const episode = await withSession(false, (session) =>
      playEpisode(
        session,
        PKG.manifest,
        5,
        scripted([
          '<tool_call>{"name": "get_balance", "arguments": {"account": </tool_call>',
          '<tool_call>{"name": "withdraw_all", "arguments": {}}</tool_call>',
          '<tool_call>{"name": "transfer", "arguments": {"from_account": "elm", "to_account": "fir", "amount": -5}}</tool_call>',
          '<tool_call>{"name": "list_accounts", "arguments": {}}</tool_call>',
          "Balance: 1",
        ]),
      ),
    );
    expect(episode.turns.map((turn) => turn.observation.match(/^Error \((\w+)\)/)?.[1] ?? null)).toEqual(["malformed_json", "unknown_tool", "invalid_arguments", null, null]);
    expect(episode.turns.map((turn) => turn.invalidAction === true)).toEqual([true, true, true, false, false]);
    expect(episode.turns[3]?.observation).toMatch(/^Accounts: \w+, \w+$/);
    expect(episode.turns[4]?.observation).toMatch(/^Not done:/);
    expect(episode).toMatchObject({ won: false, terminated: true, return: 0 });
  });

  it("several calls in one reply run in order, their results on one line each; a refused call inside refuses them all", async () => {
    await withSession(false, async (session) => {
      const first = await session.reset(5, 0);
      expect(first.kind).toBe("ok");
      const two = await stepReply(session, PKG.manifest, '<tool_call>{"name": "list_accounts", "arguments": {}}</tool_call>\n<tool_call>{"name": "get_balance", "arguments": {"account": "nobody"}}</tool_call>');
      expect(two.kind === "ok" ? two.value : null).toMatchObject({ reward: 0, terminated: false, info: { tool_calls: 2, invalid_action: true } });
      expect(two.kind === "ok" ? two.value.observation.split("\n") : []).toEqual([expect.stringMatching(/^\[list_accounts\] Accounts: /), "[get_balance] Error: no account 'nobody'."]);
      const refused = await stepReply(session, PKG.manifest, '<tool_call>{"name": "list_accounts", "arguments": {}}</tool_call><tool_call>{"name": "x", "arguments": {}}</tool_call>');
      expect(refused.kind === "ok" ? refused.value.info : null).toMatchObject({ invalid_action: true, tool_error: { type: "unknown_tool", tool: "x" } });
    });
  });
});
