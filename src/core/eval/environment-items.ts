import { programOf, type EnvProgram, type Episode, type ItemErrorCode, type ItemResult, type LanguageModel, type Sandbox, type SandboxOutcome } from "../../spec/index.js";
import type { EnvPackage } from "../../spec/index.js";
import { episodesOf, playEpisodeJobs, type EpisodeJob } from "../rollout/index.js";
import { solverPolicy, type SolverFormat } from "../selfplay/solver-policy.js";
import { isModelTimeout } from "./time-limited-model.js";

/**
 * One held-out environment, the episode seeds it is played with and, with `eval --levels`, the
 * levels: every seed at every level (items level-major: item `i` is seed `i mod seeds` at level
 * `levels[⌊i / seeds⌋]`).
 */
export interface PlannedEnvironment {
  /** Package id (the store's environment id, or the package's content id). */
  readonly id: string;
  readonly package: EnvPackage;
  readonly seeds: readonly number[];
  /** Levels to play each seed at; absent: one pass without a level (`reset`'s default, level 0). */
  readonly levels?: readonly number[];
  /** The environment's own episode step cap, in place of the Solver's (`solver.maxTurns`): a BFCL entry's, 21 steps per user turn. */
  readonly maxTurns?: number;
}

/** Number of items (episodes) of a planned environment: seeds × levels. */
export function plannedItemCount(environment: PlannedEnvironment): number {
  return environment.seeds.length * (environment.levels?.length ?? 1);
}

/** The seed and level of item `index` of a planned environment (level undefined without planned levels). */
export function plannedItem(environment: PlannedEnvironment, index: number): { readonly seed: number; readonly level: number | undefined } {
  const count = environment.seeds.length;
  if (environment.levels === undefined) return { seed: environment.seeds[index] as number, level: undefined };
  return { seed: environment.seeds[index % count] as number, level: environment.levels[Math.floor(index / count)] as number };
}

/** How the Solver plays held-out episodes (the training Solver's settings by default). */
export interface EpisodeSampling {
  readonly maxTurns: number;
  readonly maxTokens: number;
  readonly temperature: number;
  readonly historyTurns?: number;
  /** Characters of earlier turns in the Solver's prompt (`solver.historyChars`). @default DEFAULT_HISTORY_CHARS */
  readonly historyChars?: number;
  /** How the Solver replies (`solver.format`). @default "action" */
  readonly format?: SolverFormat;
  /** Episodes in flight at once, each in its own sandbox session. */
  readonly concurrency: number;
}

/** One episode to evaluate: environment and its position in the plan (which names the seed and level, {@link plannedItem}). */
export interface EpisodeItem {
  readonly suite: string;
  readonly environment: PlannedEnvironment;
  readonly index: number;
}

/**
 * Plays `items` as multi-turn episodes through the sandbox with the Solver's own policy
 * (`solverPolicy`, no hint) and the shared episode runner (`playEpisodeJobs`), and reports each
 * as an {@link ItemResult} through `onItem` as it ends (so a stop loses no finished episode).
 * The score is the episode's return, a win the environment's pass threshold. An episode cut
 * short is an item error: `model_timeout` / `model_failed` (the policy failed), or
 * `environment_failed` (the environment did not load, crashed or timed out).
 *
 * @param model a model whose time limit raises {@link ModelTimeoutError} (see `timeLimitedModel`)
 * @throws what `playEpisodeJobs` rethrows (an unavailable sandbox)
 */
export async function evaluateEpisodes(
  sandbox: Sandbox,
  model: LanguageModel,
  items: readonly EpisodeItem[],
  sampling: EpisodeSampling,
  onItem: (result: ItemResult) => void,
  clock: () => number = () => performance.now(),
): Promise<void> {
  if (items.length === 0) return;
  // one program object per environment, so a lane keeps its session across that environment's episodes
  // (a terminal task's command budget is the turn cap, so its tests run after the last command played)
  const programs = new Map(items.map((item) => [item.environment.id, programOf(item.environment.package, { oracle: false, maxTurns: sampling.maxTurns })]));
  // jobs whose policy failed because the model ran out of time (read from the error, not its message)
  const timedOut = new Set<number>();
  const jobs: EpisodeJob[] = items.map((item, jobIndex) => {
    const { seed, level } = plannedItem(item.environment, item.index);
    return {
      program: programs.get(item.environment.id) as EnvProgram,
      manifest: item.environment.package.manifest,
      seed,
      policy: () => {
        const inner = solverPolicy(model, {
          hint: null,
          maxTokens: sampling.maxTokens,
          temperature: sampling.temperature,
          seed,
          ...(sampling.historyTurns === undefined ? {} : { historyTurns: sampling.historyTurns }),
          historyChars: sampling.historyChars,
          format: sampling.format,
        });
        return {
          name: inner.name,
          act: async (context) => {
            try {
              return await inner.act(context);
            } catch (error) {
              if (isModelTimeout(error)) timedOut.add(jobIndex);
              throw error;
            }
          },
        };
      },
      options: { maxTurns: item.environment.maxTurns ?? sampling.maxTurns, ...(level === undefined ? {} : { level }) },
    };
  });
  const startAll = clock();
  const onEpisode = (index: number, outcome: SandboxOutcome<Episode>) => {
    const item = items[index] as EpisodeItem;
    const [episode] = episodesOf([jobs[index] as EpisodeJob], [outcome]);
    onItem(episodeResult(item, episode as Episode, (clock() - startAll) / 1000, timedOut.has(index)));
  };
  await playEpisodeJobs(sandbox, jobs, { concurrency: sampling.concurrency, onEpisode });
}

/**
 * The item result of one played (or unplayable) episode. `seconds` is the time since the batch
 * started (episodes overlap); `modelTimedOut` marks a policy failure that was the model's time limit.
 * The level is the planned one, else the one the episode recorded (levelled families).
 */
export function episodeResult(item: EpisodeItem, episode: Episode, seconds: number, modelTimedOut = false): ItemResult {
  const error = episodeError(episode, modelTimedOut);
  const level = plannedItem(item.environment, item.index).level ?? episode.level;
  return {
    suite: item.suite,
    task: item.environment.package.manifest.name,
    bucket: null,
    index: item.index,
    seed: episode.seed,
    ...(level === undefined ? {} : { level }),
    score: episode.return,
    won: episode.won,
    actions: episode.turns.length,
    invalidActions: episode.turns.filter((turn) => turn.invalidAction === true).length,
    tokens: episode.turns.reduce((sum, turn) => sum + (turn.actionTokens?.length ?? 0), 0),
    seconds,
    error,
    response: episode.turns.at(-1)?.action ?? "",
    answer: null,
    ...(item.environment.package.manifest.tools === undefined
      ? {}
      : {
          replies: episode.turns.map((turn) => ({
            text: turn.action,
            ...(turn.toolCalls === undefined ? {} : { toolCalls: turn.toolCalls }),
            ...(turn.toolError === undefined ? {} : { toolError: turn.toolError }),
          })),
        }),
  };
}

function episodeError(episode: Episode, modelTimedOut: boolean): ItemResult["error"] {
  const failure = episode.failure;
  if (failure === undefined) return null;
  let code: ItemErrorCode;
  if (failure.kind === "policy_error") code = modelTimedOut ? "model_timeout" : "model_failed";
  else code = "environment_failed";
  return { code, message: failure.message };
}
