import { pass, reject, type EnvPackage, type Verdict } from "../../spec/index.js";
import { doNothingPolicy, randomPolicy, seededRandom, type Policy } from "../rollout/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { episodeSummary, invalidStepResult, playSeeds, rewardRangeViolation, scriptedPolicy, seedRange, withSession } from "./probe-episodes.js";

/** The planted invalid action: nothing a well-formed task can accept as an answer. */
export const INVALID_ACTION = "<<not a valid action>>";

/** The negative-control agents, each with the reason code its win produces. */
const CONTROLS: readonly { readonly reason: string; readonly policy: (seed: number) => Policy }[] = [
  { reason: "empty_solution_passes", policy: () => doNothingPolicy },
  { reason: "random_agent_passes", policy: (seed) => randomPolicy(seededRandom(7919 * (seed + 1))) },
  { reason: "invalid_action_passes", policy: () => scriptedPolicy("invalid-action", [INVALID_ACTION]) },
];

/**
 * Gate 5, negative controls (invalid-test; environment evolution's modification
 * loop): a do-nothing agent, a seeded random agent and an agent that only sends
 * a planted invalid action all stay below the pass threshold on every seed.
 * Every step reward must stay inside `rewardRange`. Reason codes:
 * `empty_solution_passes`, `random_agent_passes`, `invalid_action_passes`,
 * `reward_out_of_range`, `load_failed`.
 */
export function negativeControlsGate(): AdmissionGate {
  return { name: "negative-controls", usesModel: false, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const seeds = seedRange(context.settings.seeds);
  // one session for every control; a failure ends that control's episodes (a loss), and the executable gate already rejects crashes
  const played = await withSession(context.sandbox, candidate, false, async (session) => {
    const results = [];
    for (const control of CONTROLS) results.push({ control, episodes: await playSeeds(session, candidate, seeds, control.policy) });
    return results;
  });
  if (played.kind !== "ok") return reject("negative-controls", "load_failed", `env.py failed to load: ${played.message}`, { kind: played.kind });
  for (const { control, episodes } of played.value) {
    const outOfRange = rewardRangeViolation("negative-controls", episodes, candidate) ?? invalidStepResult("negative-controls", episodes);
    if (outOfRange !== null) return outOfRange;
    const won = episodes.filter((episode) => episode.won);
    if (won.length > 0) {
      return reject("negative-controls", control.reason, `the ${control.reason.replace(/_passes$/, "").replace(/_/g, " ")} control wins on ${won.length} of ${episodes.length} seeds`, {
        episodes: episodeSummary(episodes),
        actions: won[0]?.turns.map((turn) => turn.action.slice(0, 100)),
      });
    }
  }
  return pass("negative-controls", { seeds: seeds.length, controls: CONTROLS.map((control) => control.reason) });
}
