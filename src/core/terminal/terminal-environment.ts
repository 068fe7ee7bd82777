import {
  INVALID_ACTION_INFO_KEY,
  type CommandResult,
  type EnvAction,
  type EnvManifest,
  type EnvSession,
  type SandboxOutcome,
  type StepResult,
  type TerminalRuntime,
  type TerminalSession,
  type TerminalTask,
  type VerifierResult,
} from "../../spec/index.js";
import { parseTerminalReply, TASK_COMPLETE, TERMINAL_NEXT_REPLY, TERMINAL_REPLY_FORMAT } from "./terminal-actions.js";

/** Options of {@link TerminalEnvSession}. */
export interface TerminalEpisodeOptions {
  /** Commands per episode; after the last one the tests run. @default 30 */
  readonly maxTurns?: number;
  /** Wall-clock limit of one command, milliseconds (also bounded by what is left of `task.agentTimeoutSec`). @default 60000 */
  readonly commandTimeoutMs?: number;
}

/** Default commands per terminal episode. */
export const DEFAULT_TERMINAL_TURNS = 30;

/**
 * The manifest a terminal task is played under by the episode loop: reward range [0, 1], won at
 * reward 1 (tests that pass), `maxTurns` commands, the task's `[metadata].hint` when it has one.
 */
export function terminalManifest(task: TerminalTask, maxTurns = DEFAULT_TERMINAL_TURNS): EnvManifest {
  const hint = terminalHint(task) ?? "(this task has no hint)";
  const skills = Array.isArray(task.metadata.tags) ? task.metadata.tags.filter((tag): tag is string => typeof tag === "string").slice(0, 8) : [];
  return {
    schemaVersion: 1,
    name: task.name.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+/, "").slice(0, 64) || "terminal-task",
    title: task.name,
    description: task.instruction.slice(0, 4000),
    interaction: "multi-turn",
    maxTurns,
    rewardRange: [0, 1],
    passThreshold: 1,
    hint,
    skills: skills.length > 0 ? skills : ["terminal"],
    scenario: typeof task.metadata.category === "string" ? task.metadata.category : "terminal task",
    difficulty: {},
    provenance: { origin: "seed", parentId: null, generation: 0, designerModel: null, promptHash: null, corpusDocumentIds: [], createdAt: new Date(0).toISOString() },
  };
}

/** The hint of a terminal task: task.toml's `[metadata] hint` (up to 2,000 characters, the manifest's limit), or null when it has none. */
export function terminalHint(task: TerminalTask): string | null {
  const hint = task.metadata.hint;
  return typeof hint === "string" && hint.trim() !== "" ? hint.slice(0, 2000) : null;
}

/** The observation after one command: its output, then how it ended. */
export function commandObservation(result: CommandResult): string {
  const ending = result.timedOut
    ? `[the command timed out after ${Math.round(result.ms / 1000)} s and was killed; the shell was restarted: working directory and background processes are gone, files stay]`
    : result.exitCode === null
      ? "[the shell ended; a new one starts with the next command (working directory reset, files kept)]"
      : `[exit status ${result.exitCode}]`;
  const output = result.output.endsWith("\n") || result.output === "" ? result.output : `${result.output}\n`;
  return `${output}${ending}\n${TERMINAL_NEXT_REPLY}`;
}

/**
 * A terminal task as an {@link EnvSession}, so the episode loop, the baseline policies and the
 * oracle policy play it like any environment. `reset` opens a fresh root (the seed is not used:
 * a terminal task is one instance) and returns the instruction with the reply format. `step`
 * reads the reply ({@link parseTerminalReply}): a command runs in the shell and its output is the
 * observation; a reply with neither a command nor {@link TASK_COMPLETE} is refused as an invalid
 * action. The tests run when the agent says it is done, after `maxTurns` commands, or when the
 * task's agent time is spent; their reward is the step's reward and the episode terminates.
 * `oracleAction` installs `solution/` at /solution and answers `bash /solution/solve.sh` with
 * the completion word.
 */
export class TerminalEnvSession implements EnvSession {
  private session: TerminalSession | null = null;
  private turns = 0;
  private agentMs = 0;
  private finished = false;
  private oracleInstalled = false;
  /** The last verification, once the tests ran. */
  verification: VerifierResult | null = null;
  /** The commands of the current episode with what each gave, in order. */
  readonly commandResults: { readonly command: string; readonly result: CommandResult }[] = [];

  constructor(
    private readonly runtime: TerminalRuntime,
    private readonly task: TerminalTask,
    private readonly options: TerminalEpisodeOptions = {},
  ) {}

  private get maxTurns(): number {
    return this.options.maxTurns ?? DEFAULT_TERMINAL_TURNS;
  }

  async reset(): Promise<SandboxOutcome<string>> {
    await this.session?.close();
    this.session = null;
    this.turns = 0;
    this.agentMs = 0;
    this.finished = false;
    this.oracleInstalled = false;
    this.verification = null;
    this.commandResults.length = 0;
    const opened = await this.runtime.open(this.task);
    if (opened.kind !== "ok") return opened;
    this.session = opened.value;
    return { kind: "ok", value: `${this.task.instruction.trim()}\n\n${TERMINAL_REPLY_FORMAT}` };
  }

  async step(action: EnvAction): Promise<SandboxOutcome<StepResult>> {
    const session = this.session;
    if (session === null || this.finished) return { kind: "protocol_violation", message: "step after the terminal episode ended (reset first)" };
    try {
      return { kind: "ok", value: await this.play(session, parseTerminalReply(typeof action === "string" ? action : JSON.stringify(action))) };
    } catch (error) {
      // the jail died (the holder was killed, the machine ran out of memory): this episode is over
      this.finished = true;
      return { kind: "crash", message: `the terminal jail failed: ${(error as Error).message}` };
    }
  }

  /** One turn: every reply counts toward `maxTurns`, an invalid one too, so the tests always run at the cap. */
  private async play(session: TerminalSession, parsed: ReturnType<typeof parseTerminalReply>): Promise<StepResult> {
    this.turns += 1;
    const last = this.turns >= this.maxTurns;
    if (parsed.kind === "invalid") {
      if (last) return this.finish(parsed.message, false, true);
      return { observation: parsed.message, reward: 0, terminated: false, truncated: false, info: { [INVALID_ACTION_INFO_KEY]: true } };
    }
    let observation = "";
    if (parsed.kind === "command") {
      const leftMs = this.task.agentTimeoutSec * 1000 - this.agentMs;
      const timeoutMs = Math.max(1000, Math.min(this.options.commandTimeoutMs ?? 60_000, leftMs));
      const result = await session.run(parsed.command, timeoutMs);
      this.commandResults.push({ command: parsed.command, result });
      this.agentMs += result.ms;
      observation = commandObservation(result);
    }
    const outOfTime = this.agentMs >= this.task.agentTimeoutSec * 1000;
    if (parsed.kind === "done" || (parsed.kind === "command" && parsed.done) || last || outOfTime) return this.finish(observation, outOfTime);
    return { observation, reward: 0, terminated: false, truncated: false, info: {} };
  }

  private async finish(observation: string, outOfTime: boolean, invalid = false): Promise<StepResult> {
    const session = this.session as TerminalSession;
    this.finished = true;
    const verification = await session.verify();
    this.verification = verification;
    const reward = verification.reward ?? 0;
    const why = outOfTime ? "the agent's time is spent; " : "";
    const tests = verification.reward === null ? `no reward (${verification.rewardError ?? "unknown"})` : `reward ${verification.reward}`;
    return {
      observation: `${observation}${observation === "" ? "" : "\n"}[${why}the tests ran: ${tests}]`,
      reward: Math.min(1, Math.max(0, reward)),
      terminated: true,
      truncated: false,
      // not the tests' output: it can state the expected answer, and a served task is the same instance every episode
      info: { verifier: { reward: verification.reward, rewardError: verification.rewardError, exitCode: verification.exitCode, timedOut: verification.timedOut }, ...(invalid ? { [INVALID_ACTION_INFO_KEY]: true } : {}) },
    };
  }

  async oracleAction(): Promise<SandboxOutcome<EnvAction>> {
    if (this.task.solutionDir === null) return { kind: "crash", message: `${this.task.name} has no solution/solve.sh` };
    if (this.session === null) return { kind: "protocol_violation", message: "oracle asked before reset" };
    if (!this.oracleInstalled) {
      await this.session.copyIn(this.task.solutionDir, "/solution");
      this.oracleInstalled = true;
    }
    return { kind: "ok", value: `\`\`\`bash\nbash /solution/solve.sh\n\`\`\`\n${TASK_COMPLETE}` };
  }

  async close(): Promise<void> {
    await this.session?.close();
    this.session = null;
  }
}
