import { episodeReturn, stepReply } from "../core/rollout/index.js";
import { programOf, resetLevel, ServeRequestError, type EnvSession, type Sandbox, type SandboxFailureKind } from "../spec/index.js";
import type { EnvironmentCatalog, ServedEnvironment } from "./catalog.js";
import { ActionSchema, ResetDataSchema, type Observation, type State, type StepPayload } from "./openenv-wire.js";
import { parseRequest } from "./validation.js";

/** What a {@link ServedSession} needs from the server. */
export interface SessionDependencies {
  readonly catalog: EnvironmentCatalog;
  /** Runs the environment programs; no environment code runs in the server's process. */
  readonly sandbox: Sandbox;
  /** Largest action, bytes of UTF-8. */
  readonly maxActionBytes: number;
  /** Seed of a reset that names none. */
  readonly randomSeed: () => number;
  /** Episode id of a reset that names none. */
  readonly newId: () => string;
  /** Whether the server is draining: then a reset starts no new episode. @default never */
  readonly isDraining?: () => boolean;
}

interface EpisodeState {
  readonly environment: ServedEnvironment;
  readonly episodeId: string;
  readonly seed: number;
  /** The level `reset` got (levelled families), or undefined (a family of one level). */
  readonly level: number | undefined;
  readonly rewards: number[];
  terminated: boolean;
  truncated: boolean;
  failure: { kind: SandboxFailureKind; message: string } | null;
  done: boolean;
}

/**
 * One OpenEnv session: a client's run of episodes, one at a time, each in a forked episode
 * process inside the sandbox's jails. Calls are queued, so a client that sends a second request
 * before the first is answered gets them answered in order. The environment is chosen at reset
 * (`data.env`, by id or name; a server with one environment needs none) and kept for later
 * resets. Episodes end when the environment terminates or truncates, after the manifest's
 * `maxTurns` steps (truncated), or when the sandbox cuts the episode (a timeout, crash or limit):
 * then the observation is `done` with `metadata.failure`, a verdict and not an error. A finished
 * episode holds no process; the next reset starts a fresh one.
 */
export class ServedSession {
  private environment: ServedEnvironment | null = null;
  private envSession: EnvSession | null = null;
  private episode: EpisodeState | null = null;
  private tail: Promise<unknown> = Promise.resolve();
  private pending = 0;
  private closed = false;

  /**
   * @param id session id (the WebSocket session's, or the HTTP episode id)
   */
  constructor(
    readonly id: string,
    private readonly dependencies: SessionDependencies,
  ) {}

  /** Requests queued or running. */
  get pendingRequests(): number {
    return this.pending;
  }

  /** Whether nothing runs: no request pending and no episode under way (true before any reset too). */
  get idle(): boolean {
    return this.pending === 0 && (this.episode === null || this.episode.done);
  }

  /** Whether the session played an episode to its end and has nothing pending (a finished HTTP episode may be evicted). */
  get finished(): boolean {
    return this.pending === 0 && this.episode !== null && this.episode.done;
  }

  /**
   * Starts an episode. `data` is OpenEnv's reset data: `seed`, `episode_id`, and envforge's `env`
   * and `level` (default 0; checked against the manifest's levels before the program loads).
   * @throws ServeRequestError `draining` (the server is shutting down), `invalid_request`, `unknown_environment`, `ambiguous_environment`, `environment_failed` (the program does not load)
   * @throws LevelOutOfRangeError when `level` is not one of the environment's levels (answered as `invalid_request`, naming the range)
   */
  reset(data: unknown): Promise<StepPayload> {
    return this.queue(async () => {
      if (this.dependencies.isDraining?.() === true) throw new ServeRequestError("draining", "the server is shutting down and starts no new episode");
      const request = parseRequest(ResetDataSchema, data ?? {}, "reset data");
      const environment = request.env !== undefined ? this.dependencies.catalog.resolve(request.env) : (this.environment ?? this.onlyEnvironment());
      const level = resetLevel(environment.package.manifest, request.level ?? undefined);
      const session = await this.sessionFor(environment);
      const seed = request.seed ?? this.dependencies.randomSeed();
      const episode: EpisodeState = {
        environment,
        episodeId: request.episode_id ?? this.dependencies.newId(),
        seed,
        level,
        rewards: [],
        terminated: false,
        truncated: false,
        failure: null,
        done: false,
      };
      this.episode = episode;
      const outcome = await session.reset(seed, level);
      if (outcome.kind !== "ok") return this.cut(episode, { kind: outcome.kind, message: outcome.message });
      return { observation: this.observation(episode, outcome.value, {}), reward: 0, done: false };
    });
  }

  /**
   * Applies an action (OpenEnv's step data: `{ "message": "..." }`).
   * @throws ServeRequestError `step_before_reset`, `episode_over`, `invalid_request`, `action_too_large`
   */
  step(data: unknown): Promise<StepPayload> {
    return this.queue(async () => {
      const episode = this.episode;
      if (episode === null) throw new ServeRequestError("step_before_reset", "step before reset: send a reset first");
      if (episode.done) throw new ServeRequestError("episode_over", "the episode is over: send a reset to start the next one");
      const action = parseRequest(ActionSchema, data, "action");
      const bytes = Buffer.byteLength(action.message, "utf8");
      if (bytes > this.dependencies.maxActionBytes) {
        throw new ServeRequestError("action_too_large", `action of ${bytes} bytes exceeds the limit of ${this.dependencies.maxActionBytes} bytes`);
      }
      const session = this.envSession;
      if (session === null) return this.cut(episode, { kind: "crash", message: "the episode process is gone" });
      const outcome = await stepReply(session, episode.environment.package.manifest, action.message);
      if (outcome.kind !== "ok") return this.cut(episode, { kind: outcome.kind, message: outcome.message });
      const step = outcome.value;
      episode.rewards.push(step.reward);
      episode.terminated = step.terminated;
      episode.truncated = step.truncated || (!step.terminated && episode.rewards.length >= episode.environment.package.manifest.maxTurns);
      const done = episode.terminated || episode.truncated;
      if (done) this.finish(episode);
      return { observation: this.observation(episode, step.observation, step.info), reward: step.reward, done };
    });
  }

  /** OpenEnv's state of the session (episode id, step count, environment, progress); defaults before the first reset. */
  state(): State {
    const episode = this.episode;
    return {
      episode_id: episode?.episodeId ?? null,
      step_count: episode?.rewards.length ?? 0,
      session_id: this.id,
      env_id: episode?.environment.id ?? this.environment?.id ?? null,
      env_name: episode?.environment.name ?? this.environment?.name ?? null,
      seed: episode?.seed ?? null,
      level: episode?.level ?? null,
      done: episode?.done ?? false,
      terminated: episode?.terminated ?? false,
      truncated: episode?.truncated ?? false,
      total_reward: episode?.rewards.reduce((sum, reward) => sum + reward, 0) ?? 0,
    };
  }

  /** Ends the session and its episode process (a call still running gets its sandbox failure). Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const session = this.envSession;
    this.envSession = null;
    await session?.close();
  }

  /** Runs `work` after every earlier call of this session. */
  private queue<T>(work: () => Promise<T>): Promise<T> {
    this.pending += 1;
    const run = this.tail.then(() => {
      if (this.closed) throw new ServeRequestError("session_expired", "the session is closed");
      return work();
    });
    this.tail = run.then(
      () => undefined,
      () => undefined,
    );
    return run.finally(() => {
      this.pending -= 1;
    });
  }

  private onlyEnvironment(): ServedEnvironment {
    const all = this.dependencies.catalog.all();
    if (all.length === 1) return all[0] as ServedEnvironment;
    throw new ServeRequestError("invalid_request", `this server hosts ${all.length} environments: name one in the reset data, e.g. {"env": "${all[0]?.name ?? "name"}"} (GET /v1/envs lists them)`);
  }

  /** A sandbox session of `environment`: the current one, or a new one (loading the program). */
  private async sessionFor(environment: ServedEnvironment): Promise<EnvSession> {
    if (this.envSession !== null && this.environment?.id === environment.id) return this.envSession;
    await this.releaseProcess();
    const pkg = environment.package;
    const opened = await this.dependencies.sandbox.open(programOf(pkg, { oracle: false }));
    if (opened.kind !== "ok") {
      throw new ServeRequestError("environment_failed", `environment ${environment.name} (${environment.id}) failed to load: ${opened.kind}: ${opened.message}`);
    }
    if (this.closed) {
      await opened.value.close();
      throw new ServeRequestError("session_expired", "the session is closed");
    }
    this.environment = environment;
    this.envSession = opened.value;
    return opened.value;
  }

  /** The episode was cut by the sandbox: a done observation carrying the failure. */
  private cut(episode: EpisodeState, failure: { kind: SandboxFailureKind; message: string }): StepPayload {
    episode.failure = failure;
    this.finish(episode);
    return { observation: this.observation(episode, "", {}), reward: 0, done: true };
  }

  private finish(episode: EpisodeState): void {
    episode.done = true;
    void this.releaseProcess();
  }

  /** Frees the episode process of a finished episode (the sandbox session; reopening one is cheap). */
  private async releaseProcess(): Promise<void> {
    const session = this.envSession;
    this.envSession = null;
    await session?.close();
  }

  private observation(episode: EpisodeState, text: string, info: Readonly<Record<string, unknown>>): Observation {
    const manifest = episode.environment.package.manifest;
    const value = episodeReturn(episode.rewards, manifest.rewardRange);
    return {
      text,
      metadata: {
        env_id: episode.environment.id,
        env_name: episode.environment.name,
        episode_id: episode.episodeId,
        seed: episode.seed,
        ...(episode.level === undefined ? {} : { level: episode.level }),
        step: episode.rewards.length,
        terminated: episode.terminated,
        truncated: episode.truncated,
        info: { ...info },
        ...(episode.done ? { return: value, won: episode.failure === null && value >= manifest.passThreshold } : {}),
        ...(episode.failure === null ? {} : { failure: episode.failure }),
      },
    };
  }
}
