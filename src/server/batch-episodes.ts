import { z } from "zod";
import { episodeReturn, stepReply } from "../core/rollout/index.js";
import { programOf, resetLevel, ServeRequestError, type EnvManifest, type EnvSession, type Sandbox, type SandboxOutcome, type StepResult } from "../spec/index.js";
import type { EnvironmentCatalog, ServedEnvironment } from "./catalog.js";

/** A level argument of a batch item: an integer; the environment's manifest decides which levels exist (absent: level 0). */
const level = z.number().int().optional();

/**
 * `POST /v1/episodes` body: whole episodes, each an environment (id or name), a seed, optionally
 * a level (default 0), and the actions to play in order.
 */
export const EpisodesRequestSchema = z
  .object({
    episodes: z
      .array(
        z
          .object({
            env: z.string().min(1).max(200),
            seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
            level,
            actions: z.array(z.string()).max(200),
          })
          .strict(),
      )
      .min(1),
  })
  .strict();

/** `POST /v1/verify` body: answers to single-turn instances (the instance is the environment's reset at `seed` and `level`, default 0). */
export const VerifyRequestSchema = z
  .object({
    answers: z
      .array(z.object({ env: z.string().min(1).max(200), seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), level, answer: z.string() }).strict())
      .min(1),
  })
  .strict();

/** One step of a played episode. */
export interface PlayedStep {
  readonly action: string;
  readonly observation: string;
  readonly reward: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly info: Readonly<Record<string, unknown>>;
}

/**
 * One whole episode played from an action list: the transcript, the return (sum of step
 * rewards clipped to the manifest's range), whether it won (return ≥ `passThreshold`, no
 * failure), and the sandbox failure that cut it, if one did. Actions after the episode ended,
 * or past the manifest's `maxTurns`, are not played; an episode whose actions ran out before it
 * ended has `terminated` and `truncated` both false.
 */
export interface PlayedEpisode {
  readonly envId: string;
  readonly envName: string;
  readonly seed: number;
  /** The level the instance was built at (levelled families only, as `Episode.level`). */
  readonly level?: number;
  readonly initialObservation: string;
  readonly steps: readonly PlayedStep[];
  readonly return: number;
  readonly won: boolean;
  readonly terminated: boolean;
  readonly truncated: boolean;
  readonly failure?: { readonly kind: string; readonly message: string };
}

/** The score of one answer to a single-turn instance. */
export interface Verification {
  readonly envId: string;
  readonly seed: number;
  /** The level the instance was built at (levelled families only). */
  readonly level?: number;
  /** The step reward of the answer. */
  readonly reward: number;
  /** reward clipped to the range reaches `passThreshold`. */
  readonly correct: boolean;
  /** The environment's feedback text. */
  readonly observation: string;
  readonly failure?: { readonly kind: string; readonly message: string };
}

/** Options of an {@link EpisodeRunner}. */
export interface EpisodeRunnerOptions {
  /** Episodes played at once, over every request. */
  readonly concurrency: number;
  /** Largest action, bytes of UTF-8. */
  readonly maxActionBytes: number;
  /** Most episodes (or answers) per request. */
  readonly maxPerRequest: number;
}

/**
 * Plays whole episodes from action lists for `POST /v1/episodes` and scores single-turn answers
 * for `POST /v1/verify`, in the sandbox (one forked episode process each, in one round trip when
 * the backend batches), at most `concurrency` at a time over all requests.
 */
export class EpisodeRunner {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly catalog: EnvironmentCatalog,
    private readonly sandbox: Sandbox,
    private readonly options: EpisodeRunnerOptions,
  ) {}

  /**
   * Plays every episode of a request, in order. Every item is checked before any plays.
   * @throws ServeRequestError `invalid_request` (too many episodes), `unknown_environment`, `ambiguous_environment`, `action_too_large`
   * @throws LevelOutOfRangeError when an item's level is not one of its environment's levels
   */
  async play(request: z.infer<typeof EpisodesRequestSchema>): Promise<PlayedEpisode[]> {
    this.checkCount(request.episodes.length);
    const resolved = request.episodes.map((episode) => {
      for (const action of episode.actions) this.checkAction(action);
      const environment = this.catalog.resolve(episode.env);
      return { ...episode, environment, level: resetLevel(environment.package.manifest, episode.level) };
    });
    return Promise.all(resolved.map((episode) => this.slot(() => this.playOne(episode.environment, episode.seed, episode.level, episode.actions))));
  }

  /**
   * Scores every answer of a request, in order.
   * @throws ServeRequestError `not_supported` when an environment is multi-turn, and as {@link play}
   * @throws LevelOutOfRangeError as {@link play}
   */
  async verify(request: z.infer<typeof VerifyRequestSchema>): Promise<Verification[]> {
    this.checkCount(request.answers.length);
    const resolved = request.answers.map((item) => {
      this.checkAction(item.answer);
      const environment = this.catalog.resolve(item.env);
      if (environment.package.manifest.interaction !== "single-turn") {
        throw new ServeRequestError("not_supported", `${environment.name} is a multi-turn environment: play it with POST /v1/episodes or a session`);
      }
      return { ...item, environment, level: resetLevel(environment.package.manifest, item.level) };
    });
    return Promise.all(
      resolved.map((item) =>
        this.slot(async (): Promise<Verification> => {
          const played = await this.playOne(item.environment, item.seed, item.level, [item.answer]);
          const step = played.steps[0];
          const manifest = item.environment.package.manifest;
          const reward = step?.reward ?? 0;
          const clipped = episodeReturn([reward], manifest.rewardRange);
          return {
            envId: item.environment.id,
            seed: item.seed,
            ...(item.level === undefined ? {} : { level: item.level }),
            reward,
            correct: played.failure === undefined && step !== undefined && clipped >= manifest.passThreshold,
            observation: step?.observation ?? "",
            ...(played.failure === undefined ? {} : { failure: played.failure }),
          };
        }),
      ),
    );
  }

  private checkCount(count: number): void {
    if (count > this.options.maxPerRequest) {
      throw new ServeRequestError("invalid_request", `${count} items in one request; at most ${this.options.maxPerRequest} (serve.maxEpisodesPerRequest)`);
    }
  }

  private checkAction(action: string): void {
    const bytes = Buffer.byteLength(action, "utf8");
    if (bytes > this.options.maxActionBytes) {
      throw new ServeRequestError("action_too_large", `action of ${bytes} bytes exceeds the limit of ${this.options.maxActionBytes} bytes`);
    }
  }

  /** @param level what `reset` gets ({@link resetLevel}: undefined for a family of one level) */
  private async playOne(environment: ServedEnvironment, seed: number, level: number | undefined, actions: readonly string[]): Promise<PlayedEpisode> {
    const manifest = environment.package.manifest;
    const played = actions.slice(0, manifest.maxTurns);
    const base = { envId: environment.id, envName: environment.name, seed, ...(level === undefined ? {} : { level }) };
    const opened = await this.sandbox.open(programOf(environment.package, { oracle: false }));
    if (opened.kind !== "ok") {
      return { ...base, initialObservation: "", steps: [], return: episodeReturn([], manifest.rewardRange), won: false, terminated: false, truncated: false, failure: { kind: opened.kind, message: opened.message } };
    }
    try {
      const run = await runActions(opened.value, manifest, seed, level, played);
      const steps: PlayedStep[] = run.steps.map((step, index) => ({ action: played[index] as string, ...step }));
      const last = steps.at(-1);
      const terminated = last?.terminated ?? false;
      const truncated = (last?.truncated ?? false) || (!terminated && steps.length >= manifest.maxTurns);
      const value = episodeReturn(
        steps.map((step) => step.reward),
        manifest.rewardRange,
      );
      const failure = run.failure === null ? undefined : run.failure;
      return {
        ...base,
        initialObservation: run.initialObservation,
        steps,
        return: value,
        won: failure === undefined && value >= manifest.passThreshold,
        terminated,
        truncated,
        ...(failure === undefined ? {} : { failure }),
      };
    } finally {
      await opened.value.close();
    }
  }

  /** Runs `work` when fewer than `concurrency` episodes are being played. */
  private async slot<T>(work: () => Promise<T>): Promise<T> {
    if (this.running >= this.options.concurrency) await new Promise<void>((resolve) => this.waiting.push(resolve));
    this.running += 1;
    try {
      return await work();
    } finally {
      this.running -= 1;
      this.waiting.shift()?.();
    }
  }
}

/** Reset and the actions in one round trip where the backend can, call by call otherwise; a failure keeps the steps before it. */
async function runActions(
  session: EnvSession,
  manifest: EnvManifest,
  seed: number,
  level: number | undefined,
  actions: readonly string[],
): Promise<{ initialObservation: string; steps: StepResult[]; failure: { kind: string; message: string } | null }> {
  // the batch helper plays text actions as they are; a tool environment's replies are parsed call by call (stepReply)
  if (session.runActions !== undefined && manifest.tools === undefined) {
    const run = await session.runActions(seed, actions, level);
    if (run.kind === "ok") return { initialObservation: run.value.initialObservation, steps: [...run.value.steps], failure: null };
    // a slow failure is not played twice; a fast one (a crash, a bad reply) is replayed call by call to keep the steps before it
    if (run.kind === "timeout" || run.kind === "cpu_limit" || run.kind === "memory_limit") return { initialObservation: "", steps: [], failure: failureOf(run) };
  }
  const reset = await session.reset(seed, level);
  if (reset.kind !== "ok") return { initialObservation: "", steps: [], failure: failureOf(reset) };
  const steps: StepResult[] = [];
  for (const action of actions) {
    const step = await stepReply(session, manifest, action);
    if (step.kind !== "ok") return { initialObservation: reset.value, steps, failure: failureOf(step) };
    steps.push(step.value);
    if (step.value.terminated || step.value.truncated) break;
  }
  return { initialObservation: reset.value, steps, failure: null };
}

function failureOf(outcome: Exclude<SandboxOutcome<unknown>, { kind: "ok" }>): { kind: string; message: string } {
  return { kind: outcome.kind, message: outcome.message };
}
