import { pass, reject } from "../../../spec/index.js";
import { seededRandom } from "../../rollout/index.js";
import { controlEvidence, playControl, type TerminalGate } from "./terminal-gate.js";
import { finishAtOncePolicy, randomCommandsPolicy } from "./terminal-policies.js";

/** Seeds of the random-commands control's episodes. */
const RANDOM_SEEDS = [1, 2, 3] as const;

/**
 * Negative controls of a terminal task: the empty solution (the agent says it is done at once: a
 * task whose tests pass before the agent acts) and a seeded agent running harmless commands
 * ({@link randomCommandsPolicy}, three episodes) must both fail the tests. Reasons:
 * `empty_solution_passes`, `random_commands_pass`.
 */
export function terminalControlsGate(): TerminalGate {
  return {
    name: "negative-controls",
    async check(task, context) {
      const empty = await playControl(task, context, () => finishAtOncePolicy, "empty/0");
      if (empty.episode.won) return reject("negative-controls", "empty_solution_passes", "the tests pass when the agent does nothing", controlEvidence(empty));
      for (const seed of RANDOM_SEEDS) {
        const random = await playControl(task, context, () => randomCommandsPolicy(task.instruction, seededRandom(seed)));
        if (random.episode.won) return reject("negative-controls", "random_commands_pass", `the tests pass after harmless commands (seed ${seed})`, controlEvidence(random));
      }
      return pass("negative-controls", { emptyReward: empty.verification?.reward, randomEpisodes: RANDOM_SEEDS.length });
    },
  };
}
