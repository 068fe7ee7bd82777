import type { AdmissionGateName } from "../../../config/index.js";
import type { CommandResult, Episode, TerminalRuntime, TerminalTask, Verdict, VerifierResult } from "../../../spec/index.js";
import { playEpisode, type Policy } from "../../rollout/index.js";
import { terminalManifest, TerminalEnvSession } from "../../terminal/terminal-environment.js";
import type { AdmissionSettings } from "../gate.js";

/** What the terminal admission gates use. */
export interface TerminalAdmissionContext {
  readonly runtime: TerminalRuntime;
  /** The thresholds shared with environment programs (`textSimilarity` for novelty, the hint's length bounds). */
  readonly settings: Pick<AdmissionSettings, "textSimilarity" | "hintMinChars" | "hintMaxChars">;
  /** Terminal tasks a candidate must differ from (the seeds, memory). A task in the same folder is skipped. @default [] */
  readonly pool?: readonly TerminalTask[];
  /** Commands per control episode. @default 8 */
  readonly maxTurns?: number;
}

/**
 * One admission check of a terminal task, with the name of the environment-program gate it mirrors
 * (so reports, `admission.skip` and the verdict table treat both kinds alike). Never throws for a
 * bad task: a reject verdict.
 */
export interface TerminalGate {
  readonly name: AdmissionGateName;
  check(task: TerminalTask, context: TerminalAdmissionContext): Promise<Verdict>;
}

/** One control episode: what the agent did and what the tests said. */
export interface ControlEpisode {
  readonly episode: Episode;
  readonly verification: VerifierResult | null;
  /** The commands the agent ran, with what each gave. */
  readonly commands: readonly { readonly command: string; readonly result: CommandResult }[];
}

/** Control episodes already played, per admission context, by task folder and key. */
const played = new WeakMap<TerminalAdmissionContext, Map<string, Promise<ControlEpisode>>>();

/**
 * Plays `policy` (built for the live session) on a fresh root of `task`; the tests run at its end.
 * With `key` (e.g. `oracle/0`), the episode is played once per admission context and shared: the
 * determinism gate's first oracle and empty episodes are the ones the oracle and negative-controls
 * gates judge, as the program gates share `playOracle`.
 */
export function playControl(task: TerminalTask, context: TerminalAdmissionContext, policy: (session: TerminalEnvSession) => Policy, key?: string): Promise<ControlEpisode> {
  if (key === undefined) return playFresh(task, context, policy);
  let episodes = played.get(context);
  if (episodes === undefined) {
    episodes = new Map();
    played.set(context, episodes);
  }
  const id = `${task.folder}\0${key}`;
  let episode = episodes.get(id);
  if (episode === undefined) {
    episode = playFresh(task, context, policy);
    episodes.set(id, episode);
  }
  return episode;
}

async function playFresh(task: TerminalTask, context: TerminalAdmissionContext, policy: (session: TerminalEnvSession) => Policy): Promise<ControlEpisode> {
  const maxTurns = context.maxTurns ?? 8;
  const session = new TerminalEnvSession(context.runtime, task, { maxTurns });
  try {
    const episode = await playEpisode(session, terminalManifest(task, maxTurns), 0, policy(session));
    return { episode, verification: session.verification, commands: [...session.commandResults] };
  } finally {
    await session.close();
  }
}

/** The evidence a verdict keeps of a control episode: reward, the tests' last output, the commands. */
export function controlEvidence(control: ControlEpisode): Record<string, unknown> {
  return {
    reward: control.verification?.reward ?? null,
    exitCodes: control.commands.map((command) => command.result.exitCode),
    rewardError: control.verification?.rewardError ?? null,
    failure: control.episode.failure ?? null,
    commands: control.episode.turns.map((turn) => turn.action.slice(0, 200)),
    testsOutput: control.verification?.output.slice(-800) ?? "",
  };
}
