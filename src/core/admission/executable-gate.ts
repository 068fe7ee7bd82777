import { pass, reject, type EnvPackage, type EnvSession, type RejectVerdict, type Verdict } from "../../spec/index.js";
import { quotedOptions } from "../rollout/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { REWARD_RANGE_TOLERANCE, seedRange, withSession } from "./probe-episodes.js";

/** Probe actions sent as the first action of a fresh episode of every probe seed. */
export const PROBE_ACTIONS: readonly string[] = ["1", "2", "test", "", "x".repeat(10_240), "ünïcødé → 日本語 ✓"];

/**
 * The action of turn `turn` (0-based) of the whole-episode probe: the environment's own
 * vocabulary, swept in turn — the quoted options of its first and current observation (`'inc'`,
 * `"look"`), or, when they quote none, their numbers and words — falling back to the first four
 * {@link PROBE_ACTIONS} when the observations hold nothing. So each environment is probed with the
 * moves it offers (an episode that never ends under its own valid moves is found), not with one
 * fixed list that most environments refuse on the first turn.
 */
export function sweepAction(initialObservation: string, observation: string, turn: number): string {
  const texts = [initialObservation, observation];
  const distinct = (values: Iterable<string>) => [...new Set([...values].map((value) => value.trim()).filter((value) => value !== "" && value.length <= 40))];
  const quoted = distinct(texts.flatMap(quotedOptions));
  const tokens = distinct(texts.flatMap((text) => [...[...text.matchAll(/-?\d{1,9}/g)].map((match) => match[0]), ...text.split(/[\s,.;:!?()[\]{}'"]+/)]));
  const candidates = quoted.length > 0 ? quoted : tokens;
  if (candidates.length === 0) return PROBE_ACTIONS[turn % 4] ?? "1";
  return candidates[turn % candidates.length] as string;
}

/**
 * Gate 2: the program loads; `reset` runs for every probe seed; `step` accepts
 * each probe action in a fresh episode without failing (the sandbox checks
 * observation, reward and flag types and finiteness); every step reward and
 * the running return stay inside the declared `rewardRange`; and an episode
 * swept with the environment's own vocabulary ({@link sweepAction}) ends (terminated or
 * truncated) within `maxTurns` steps, its running return in range.
 * Reason codes: `load_failed`, `reset_failed`, `step_failed` (crash, timeout,
 * limits), `invalid_step_result` (wrong types, NaN or infinite reward),
 * `reward_out_of_range`, `unbounded_episode`; the sandbox failure kind and
 * traceback are in the evidence.
 */
export function executableGate(): AdmissionGate {
  return { name: "executable", usesModel: false, perLevel: true, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  // the gate checks each reward and the running return itself, to say which left the range
  const outcome = await withSession(context.sandbox, candidate, false, (session) => probe(session, candidate, seedRange(context.settings.probeSeeds)), { checkRewardRange: false });
  if (outcome.kind !== "ok") {
    return reject("executable", "load_failed", `env.py failed to load: ${outcome.message}`, { kind: outcome.kind, detail: outcome.detail });
  }
  return outcome.value ?? pass("executable", { seeds: context.settings.probeSeeds, probes: PROBE_ACTIONS.length });
}

/** `invalid_step_result` for a step that returned wrong types or non-finite rewards, else `step_failed`. */
function stepReason(kind: string): "invalid_step_result" | "step_failed" {
  return kind === "protocol_violation" ? "invalid_step_result" : "step_failed";
}

async function probe(session: EnvSession, candidate: EnvPackage, seeds: readonly number[]): Promise<RejectVerdict | null> {
  const [low, high] = candidate.manifest.rewardRange;
  const maxTurns = candidate.manifest.maxTurns;
  const reset = async (seed: number) => {
    const outcome = await session.reset(seed);
    return outcome.kind === "ok" ? null : reject("executable", "reset_failed", `reset(${seed}) failed: ${outcome.message}`, { kind: outcome.kind, seed, detail: outcome.detail });
  };
  for (const seed of seeds) {
    for (const action of PROBE_ACTIONS) {
      const failed = await reset(seed);
      if (failed) return failed;
      const step = await session.step(action);
      const shown = action.length > 40 ? `${action.slice(0, 20)}… (${action.length} characters)` : action;
      if (step.kind !== "ok") {
        return reject("executable", stepReason(step.kind), `step(${JSON.stringify(shown)}) failed on seed ${seed}: ${step.message}`, { kind: step.kind, seed, action: shown, detail: step.detail });
      }
      if (step.value.reward < low - REWARD_RANGE_TOLERANCE || step.value.reward > high + REWARD_RANGE_TOLERANCE) {
        return reject("executable", "reward_out_of_range", `step(${JSON.stringify(shown)}) on seed ${seed} gave reward ${step.value.reward} outside [${low}, ${high}]`, { seed, action: shown, reward: step.value.reward });
      }
    }
    // one whole episode swept with the environment's own vocabulary: the running return stays in range and the episode ends by maxTurns
    const first = await session.reset(seed);
    if (first.kind !== "ok") return reject("executable", "reset_failed", `reset(${seed}) failed: ${first.message}`, { kind: first.kind, seed, detail: first.detail });
    let observation = first.value;
    let total = 0;
    let ended = false;
    for (let turn = 0; turn < maxTurns && !ended; turn += 1) {
      const action = sweepAction(first.value, observation, turn);
      const step = await session.step(action);
      if (step.kind !== "ok") {
        return reject("executable", stepReason(step.kind), `step(${JSON.stringify(action)}) at turn ${turn + 1} of seed ${seed} failed: ${step.message}`, { kind: step.kind, seed, turn: turn + 1, detail: step.detail });
      }
      observation = step.value.observation;
      total += step.value.reward;
      if (step.value.reward < low - REWARD_RANGE_TOLERANCE || step.value.reward > high + REWARD_RANGE_TOLERANCE || total < low - REWARD_RANGE_TOLERANCE || total > high + REWARD_RANGE_TOLERANCE) {
        return reject("executable", "reward_out_of_range", `seed ${seed}, turn ${turn + 1}: reward ${step.value.reward} (running return ${total}) outside [${low}, ${high}]`, { seed, turn: turn + 1, reward: step.value.reward, total });
      }
      ended = step.value.terminated || step.value.truncated;
    }
    if (!ended) {
      return reject("executable", "unbounded_episode", `seed ${seed}: the episode neither terminated nor truncated within maxTurns = ${maxTurns} steps of the moves its observations offer`, { seed, maxTurns });
    }
  }
  return null;
}
