import { pass, reject, type EnvPackage, type Verdict } from "../../spec/index.js";
import { doNothingPolicy, randomPolicy, seededRandom, type Policy } from "../rollout/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { playOracle, winningActions } from "./oracle-gate.js";
import { episodeSummary, invalidStepResult, playSeeds, rewardRangeViolation, scriptedPolicy, seedRange, withSession } from "./probe-episodes.js";

/** The planted invalid action: nothing a well-formed task can accept as an answer. */
export const INVALID_ACTION = "<<not a valid action>>";

/** The negative-control agents, each with the reason code its win produces. */
const CONTROLS: readonly { readonly reason: string; readonly policy: (seed: number) => Policy }[] = [
  { reason: "empty_solution_passes", policy: () => doNothingPolicy },
  { reason: "random_agent_passes", policy: (seed) => randomPolicy(seededRandom(7919 * (seed + 1))) },
  { reason: "invalid_action_passes", policy: () => scriptedPolicy("invalid-action", [INVALID_ACTION]) },
];

/** Fewest other seeds the fixed-reply control needs: with fewer, a task with two possible answers would lose too often by chance. */
export const FIXED_REPLY_MIN_SEEDS = 4;

/** The fixed-reply control: rejects only when it wins on every seed it plays (unlike the others, which must never win). */
const FIXED_REPLY = { reason: "fixed_reply_passes" } as const;

/**
 * Gate 5, negative controls (invalid-test; environment evolution's modification
 * loop): a do-nothing agent, a seeded random agent and an agent that only sends
 * a planted invalid action all stay below the pass threshold on every seed; and a
 * fixed reply (the oracle's winning actions on the first seed, replayed on every
 * other seed) must lose on at least one of them (the rubric's "a fixed reply
 * cannot win"; a Qwen2.5-Coder-0.5B design whose `solve` answered 1 for every
 * instance passed every other mechanical gate). The fixed-reply control runs
 * when the oracle wins the first seed and at least {@link FIXED_REPLY_MIN_SEEDS}
 * other seeds are played: a yes/no task then gives one answer on all eight seeds
 * by chance with probability 2⁻⁷. Every step reward must stay inside
 * `rewardRange`. Reason codes: `empty_solution_passes`, `random_agent_passes`,
 * `invalid_action_passes`, `fixed_reply_passes`, `reward_out_of_range`, `load_failed`.
 */
export function negativeControlsGate(): AdmissionGate {
  return { name: "negative-controls", usesModel: false, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const seeds = seedRange(context.settings.seeds);
  const [first, ...others] = seeds;
  const oracle = others.length >= FIXED_REPLY_MIN_SEEDS ? await playOracle(candidate, context) : null;
  const fixed = oracle?.kind === "ok" ? winningActions(oracle.value).find((win) => win.seed === first) : undefined;
  // one session for every control; a failure ends that control's episodes (a loss), and the executable gate already rejects crashes
  const played = await withSession(context.sandbox, candidate, false, async (session) => {
    const results = [];
    for (const control of CONTROLS) results.push({ control, episodes: await playSeeds(session, candidate, seeds, control.policy) });
    if (fixed !== undefined) results.push({ control: FIXED_REPLY, episodes: await playSeeds(session, candidate, others, () => scriptedPolicy("fixed-reply", fixed.actions)) });
    return results;
  });
  if (played.kind !== "ok") return reject("negative-controls", "load_failed", `env.py failed to load: ${played.message}`, { kind: played.kind });
  for (const { control, episodes } of played.value) {
    const outOfRange = rewardRangeViolation("negative-controls", episodes, candidate) ?? invalidStepResult("negative-controls", episodes);
    if (outOfRange !== null) return outOfRange;
    const won = episodes.filter((episode) => episode.won);
    if (control === FIXED_REPLY) {
      if (won.length === episodes.length) {
        const reply = (fixed?.actions ?? []).map((action) => JSON.stringify(action.slice(0, 100))).join(", ");
        return reject("negative-controls", FIXED_REPLY.reason, `the oracle's reply to seed ${first} (${reply}) also wins on every other seed (${won.length} of ${episodes.length}): one fixed reply solves the task`, {
          episodes: episodeSummary(episodes),
          actions: fixed?.actions.map((action) => action.slice(0, 100)),
        });
      }
      continue;
    }
    if (won.length > 0) {
      return reject("negative-controls", control.reason, `the ${control.reason.replace(/_passes$/, "").replace(/_/g, " ")} control wins on ${won.length} of ${episodes.length} seeds`, {
        episodes: episodeSummary(episodes),
        actions: won[0]?.turns.map((turn) => turn.action.slice(0, 100)),
      });
    }
  }
  return pass("negative-controls", { seeds: seeds.length, controls: [...CONTROLS, ...(fixed === undefined ? [] : [FIXED_REPLY])].map((control) => control.reason) });
}
