import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPackageFolders } from "../../adapters/package-files/index.js";
import { parseToolReply } from "./tool-calls.js";

// Real Solver replies to the tool seeds (fixtures/tool-replies/*.jsonl, exported from eval stores by
// scripts/record-tool-replies.mjs): today's parser must read each as the episode loop read it when it was played.

const FIXTURES = join(import.meta.dirname, "../../../fixtures/tool-replies");
const TOOLS = new Map(loadPackageFolders(join(import.meta.dirname, "../../../envs/tool-seeds")).map((pkg) => [pkg.manifest.name, pkg.manifest.tools ?? []]));

interface Recorded {
  readonly model: string;
  readonly task: string;
  readonly text: string;
  readonly toolCalls?: number;
  readonly toolError?: string;
}

const recorded: Recorded[] = readdirSync(FIXTURES)
  .filter((file) => file.endsWith(".jsonl"))
  .flatMap((file) =>
    readFileSync(join(FIXTURES, file), "utf8")
      .split("\n")
      .filter((line) => line.trim() !== "")
      .slice(1)
      .map((line) => JSON.parse(line) as Recorded),
  );

describe("tool-call parsing of real recorded model replies", () => {
  it("has replies of every kind the models produced: calls that ran, refused calls, final messages", () => {
    expect(recorded.length).toBeGreaterThanOrEqual(7);
    expect(recorded.some((reply) => reply.toolCalls !== undefined)).toBe(true);
    expect(recorded.some((reply) => reply.toolError !== undefined)).toBe(true);
  });

  it("reads each reply as it was read when played: the same calls, the same refusal, or a final message", () => {
    for (const reply of recorded) {
      const tools = TOOLS.get(reply.task);
      if (tools === undefined) throw new Error(`no tool seed named ${reply.task}`);
      const parsed = parseToolReply(reply.text, tools);
      const read = parsed.kind === "calls" ? { toolCalls: parsed.calls.length } : parsed.kind === "invalid" ? { toolError: parsed.error.type } : {};
      const expected = { ...(reply.toolCalls === undefined ? {} : { toolCalls: reply.toolCalls }), ...(reply.toolError === undefined ? {} : { toolError: reply.toolError }) };
      // a reply whose calls ran may have made more calls than ran (the episode ended first); a refusal and a final message are exact
      if (expected.toolCalls !== undefined && read.toolCalls !== undefined) expect(read.toolCalls, reply.text).toBeGreaterThanOrEqual(expected.toolCalls);
      else expect(read, `${reply.model} on ${reply.task}: ${reply.text.slice(0, 200)}`).toEqual(expected);
    }
  });
});
