import { programOf, type EnvPackage, type Episode, type Sandbox } from "../../spec/index.js";
import { oraclePolicy, playEpisode } from "../rollout/index.js";

/** Options of {@link oracleTrace}. */
export interface OracleTraceOptions {
  /** Episode seed. @default 0 */
  readonly seed?: number;
  /** Turns played at most. @default 8 */
  readonly maxTurns?: number;
  /** Characters kept of each observation and action in the text. @default 300 */
  readonly maxChars?: number;
}

/** An oracle episode and its text form for prompts. */
export interface OracleTrace {
  /** The episode, or null when the program did not load. */
  readonly episode: Episode | null;
  /** `observation:` / `action:` lines, or a one-line note when the oracle could not play. */
  readonly text: string;
}

/**
 * Plays the environment's oracle for one episode in the sandbox and writes the
 * trace as text (the reference execution the sequence extractor reads). Never
 * throws for a broken program: the text then says what failed.
 */
export async function oracleTrace(pkg: EnvPackage, sandbox: Sandbox, options: OracleTraceOptions = {}): Promise<OracleTrace> {
  const maxChars = options.maxChars ?? 300;
  const cut = (text: string) => (text.length > maxChars ? `${text.slice(0, maxChars)}…` : text);
  const { rewardRange: _range, ...program } = programOf(pkg, { oracle: true });
  const opened = await sandbox.open(program);
  if (opened.kind !== "ok") return { episode: null, text: `(the program did not load: ${opened.kind}: ${cut(opened.message)})` };
  try {
    const episode = await playEpisode(opened.value, pkg.manifest, options.seed ?? 0, oraclePolicy(opened.value), { maxTurns: options.maxTurns ?? 8 });
    const lines = [`observation: ${cut(episode.initialObservation)}`];
    for (const turn of episode.turns) {
      lines.push(`action: ${cut(turn.action)}`, `observation: ${cut(turn.observation)} (reward ${turn.reward})`);
    }
    if (episode.failure !== undefined) lines.push(`(the episode failed: ${episode.failure.kind}: ${cut(episode.failure.message)})`);
    lines.push(`return: ${episode.return}`);
    return { episode, text: lines.join("\n") };
  } finally {
    await opened.value.close();
  }
}
