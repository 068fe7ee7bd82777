import type { AdmissionGateName } from "../../../config/index.js";
import type { TerminalTask } from "../../../spec/index.js";
import { runGates, type AdmissionResult, type AdmitOptions } from "../pipeline.js";
import type { TerminalAdmissionContext, TerminalGate } from "./terminal-gate.js";
import { terminalControlsGate } from "./terminal-controls-gate.js";
import { terminalDeterminismGate } from "./terminal-determinism-gate.js";
import { terminalExecutableGate } from "./terminal-executable-gate.js";
import { terminalHintGate } from "./terminal-hint-gate.js";
import { terminalNoveltyGate } from "./terminal-novelty-gate.js";
import { terminalOracleGate } from "./terminal-oracle-gate.js";

/** The terminal gates in the program pipeline's order (novelty last: a copy of a seed is judged after its own faults); each carries the name of the program gate it mirrors. */
const TERMINAL_GATES: readonly (() => TerminalGate)[] = [terminalExecutableGate, terminalDeterminismGate, terminalOracleGate, terminalControlsGate, terminalHintGate, terminalNoveltyGate];

/** Names of the terminal gates, in order (the `static` stage is reading the task folder). */
export const TERMINAL_GATE_NAMES: readonly AdmissionGateName[] = TERMINAL_GATES.map((gate) => gate().name);

/**
 * Admits a terminal task through the shared gate loop ({@link runGates}): executable (root
 * prepared, tests give a reward), determinism (repeated controls agree), oracle (solve.sh passes),
 * negative controls (the empty solution and harmless commands fail), hint (no solution line in it), novelty. `selection` keeps
 * the gates named in `gates` (`admission.gates`; default all) less those in `skip`
 * (`admission.skip`). Never throws for a bad task.
 */
export function admitTerminalTask(
  task: TerminalTask,
  context: TerminalAdmissionContext,
  selection: { readonly gates?: readonly string[]; readonly skip?: readonly string[] } = {},
  options: AdmitOptions = {},
): Promise<AdmissionResult> {
  const gates = TERMINAL_GATES.map((make) => make()).filter((gate) => (selection.gates === undefined || selection.gates.includes(gate.name)) && !(selection.skip ?? []).includes(gate.name));
  return runGates(task, gates, context, undefined, options);
}
