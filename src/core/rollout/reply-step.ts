import { INVALID_ACTION_INFO_KEY, type EnvManifest, type EnvSession, type SandboxOutcome, type StepResult } from "../../spec/index.js";
import { parseToolReply, toolErrorObservation } from "./tool-calls.js";

/**
 * Applies one agent reply to a live episode — the one place a reply becomes `step` calls, for
 * the episode loop and the environment server alike. A text environment's `step` gets the reply
 * as it is. A tool environment's reply is parsed ({@link parseToolReply}): each tool call is one
 * `step(call)`, in order, until the episode ends (the observation carries every call's result,
 * `[name] result` per line when there are several; rewards add up; the last call's info, with
 * `tool_calls`: how many ran); a final message is `step(text)`; a refused call never reaches the
 * environment: the observation is a typed error the agent can recover from (reward 0, the episode
 * goes on, info `invalid_action: true` and `tool_error: {type, tool?, message}`).
 *
 * @returns the step's outcome; a sandbox failure of any call is the outcome (the episode is over)
 * @throws Error when the manifest's tool schemas are not valid JSON Schema (admission rejects such environments first)
 */
export async function stepReply(session: EnvSession, manifest: Pick<EnvManifest, "tools">, reply: string): Promise<SandboxOutcome<StepResult>> {
  if (manifest.tools === undefined) return session.step(reply);
  const parsed = parseToolReply(reply, manifest.tools);
  if (parsed.kind === "final") return session.step(parsed.text);
  if (parsed.kind === "invalid") {
    return { kind: "ok", value: { observation: toolErrorObservation(parsed.error), reward: 0, terminated: false, truncated: false, info: { [INVALID_ACTION_INFO_KEY]: true, tool_error: { ...parsed.error } } } };
  }
  const results: { name: string; result: StepResult }[] = [];
  for (const call of parsed.calls) {
    const outcome = await session.step(call);
    if (outcome.kind !== "ok") return outcome;
    results.push({ name: call.name, result: outcome.value });
    if (outcome.value.terminated || outcome.value.truncated) break;
  }
  const last = results.at(-1)?.result as StepResult;
  const observation = results.length === 1 ? last.observation : results.map(({ name, result }) => `[${name}] ${result.observation}`).join("\n");
  return {
    kind: "ok",
    value: { observation, reward: results.reduce((sum, { result }) => sum + result.reward, 0), terminated: last.terminated, truncated: last.truncated, info: { ...last.info, tool_calls: results.length } },
  };
}
