import { INVALID_ACTION_INFO_KEY, isToolCallErrorType, resetLevel, type EnvManifest, type EnvSession, type Episode, type Turn } from "../../spec/index.js";
import type { Policy } from "./policy.js";
import { stepReply } from "./reply-step.js";

/** Options of {@link playEpisode}. */
export interface PlayEpisodeOptions {
  /** Caps the environment's `maxTurns` further (e.g. to bound model time). @default manifest.maxTurns */
  readonly maxTurns?: number;
  /** The level to build the instance at (levelled families; see `resetLevel`). @default 0 */
  readonly level?: number;
}

/**
 * Plays one episode of a loaded environment: `reset(seed, level)`, then policy and
 * `step` alternate until the environment terminates or truncates, or the turn
 * cap is reached. The return is the sum of step rewards clipped to
 * `manifest.rewardRange`; the episode is won when the return reaches
 * `manifest.passThreshold`. Each reply is applied by {@link stepReply} (a tool environment's
 * reply is parsed into tool calls). A turn whose `info` says the environment refused the
 * action (`invalid_action: true`) is marked `invalidAction`. Sandbox failures and policy errors end the episode
 * early and are recorded in `failure`; they never throw.
 *
 * @param session a live session of the environment program
 * @param manifest the environment's manifest (reward range, threshold, maxTurns)
 * @param seed episode seed passed to `reset`
 * @throws LevelOutOfRangeError when `options.level` is not one of the manifest's levels
 */
export async function playEpisode(
  session: EnvSession,
  manifest: EnvManifest,
  seed: number,
  policy: Policy,
  options: PlayEpisodeOptions = {},
): Promise<Episode> {
  const maxTurns = Math.min(manifest.maxTurns, options.maxTurns ?? manifest.maxTurns);
  const level = resetLevel(manifest, options.level);
  const reset = await session.reset(seed, level);
  const finish = (initialObservation: string, turns: readonly Turn[], terminated: boolean, truncated: boolean, failure?: Episode["failure"]) =>
    finishEpisode(manifest, seed, level, initialObservation, turns, terminated, truncated, failure);
  if (reset.kind !== "ok") {
    return finish("", [], false, false, { kind: reset.kind, message: reset.message });
  }
  const turns: Turn[] = [];
  let observation = reset.value;
  let terminated = false;
  let truncated = false;
  while (turns.length < maxTurns && !terminated && !truncated) {
    let action;
    try {
      action = await policy.act({ observation, initialObservation: reset.value, turns, ...(manifest.tools === undefined ? {} : { tools: manifest.tools }) });
    } catch (error) {
      return finish(reset.value, turns, false, true, {
        kind: "policy_error",
        message: `${policy.name}: ${(error as Error).message}`,
      });
    }
    const step = await stepReply(session, manifest, action.text);
    if (step.kind !== "ok") {
      return finish(reset.value, turns, false, true, { kind: step.kind, message: step.message });
    }
    observation = step.value.observation;
    terminated = step.value.terminated;
    truncated = step.value.truncated;
    turns.push({
      action: action.text,
      observation,
      reward: step.value.reward,
      ...(step.value.info[INVALID_ACTION_INFO_KEY] === true ? { invalidAction: true as const } : {}),
      ...toolFields(step.value.info),
      ...(action.tokens ? { actionTokens: action.tokens } : {}),
      ...(action.logprobs ? { actionLogprobs: action.logprobs } : {}),
      ...(action.promptTokens ? { promptTokens: action.promptTokens } : {}),
    });
  }
  return finish(reset.value, turns, terminated, truncated || !terminated);
}

/** A tool environment's turn: how many calls ran (`info.tool_calls`, set by {@link stepReply}) or why the reply was refused (`info.tool_error.type`). */
function toolFields(info: Readonly<Record<string, unknown>>): Pick<Turn, "toolCalls" | "toolError"> {
  const calls = info.tool_calls;
  const error = (info.tool_error as { type?: unknown } | undefined)?.type;
  return {
    ...(typeof calls === "number" && calls > 0 ? { toolCalls: calls } : {}),
    ...(typeof error === "string" && isToolCallErrorType(error) ? { toolError: error } : {}),
  };
}

/** Sum of rewards clipped to `[low, high]` (design map: Solver return). */
export function episodeReturn(rewards: readonly number[], rewardRange: readonly [number, number]): number {
  const sum = rewards.reduce((total, reward) => total + reward, 0);
  return Math.min(rewardRange[1], Math.max(rewardRange[0], sum));
}

function finishEpisode(
  manifest: EnvManifest,
  seed: number,
  level: number | undefined,
  initialObservation: string,
  turns: readonly Turn[],
  terminated: boolean,
  truncated: boolean,
  failure?: Episode["failure"],
): Episode {
  const value = episodeReturn(
    turns.map((turn) => turn.reward),
    manifest.rewardRange,
  );
  const won = failure === undefined && value >= manifest.passThreshold;
  return {
    seed,
    ...(level === undefined ? {} : { level }),
    initialObservation,
    turns,
    return: value,
    won,
    terminated,
    truncated,
    ...(failure ? { failure } : {}),
  };
}
