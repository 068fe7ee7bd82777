import { z } from "zod";

/**
 * OpenEnv's WebSocket error codes (`WSErrorCode` in `openenv-core`), sent as `data.code` of an
 * `{"type": "error"}` frame. envforge adds `data.reason` (a {@link ServeProblem}) beside it.
 */
export const OPENENV_ERROR_CODES = [
  "INVALID_JSON",
  "UNKNOWN_TYPE",
  "VALIDATION_ERROR",
  "EXECUTION_ERROR",
  "CAPACITY_REACHED",
  "FACTORY_ERROR",
  "SESSION_ERROR",
] as const;

/** One OpenEnv WebSocket error code. */
export type OpenEnvErrorCode = (typeof OPENENV_ERROR_CODES)[number];

/**
 * Parameters of a reset (WebSocket `data` of a `reset` frame, the body of `POST /reset`), as
 * OpenEnv's `ResetRequest`: `seed` (integer ≥ 0; absent or null = a random one) and
 * `episode_id` (≤ 255 characters; absent = a generated one), plus envforge's `env`: the id or
 * name of the environment to play (needed when the server hosts several and the session has
 * none yet), and `level`: the level to build the instance at (an integer; absent or null =
 * level 0; the environment's manifest decides which levels exist, `GET /v1/envs` lists them, and
 * a level outside them is refused naming the range). Other keys are accepted and ignored, as
 * OpenEnv does for parameters the environment's `reset` does not take.
 */
export const ResetDataSchema = z
  .object({
    seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER).nullish(),
    episode_id: z.string().min(1).max(255).nullish(),
    env: z.string().min(1).max(200).optional(),
    level: z.number().int().nullish(),
  })
  .loose();

/** Parsed {@link ResetDataSchema}. */
export type ResetData = z.infer<typeof ResetDataSchema>;

/**
 * The action of every envforge environment: the agent's text reply in `message` (the
 * `TextArenaAction` shape), plus OpenEnv's optional `metadata`. Unknown keys are refused, as
 * OpenEnv's `Action` does (`extra="forbid"`).
 */
export const ActionSchema = z
  .object({
    message: z.string().describe("the agent's reply, passed to the environment's step(action) as a string"),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

/** Parsed {@link ActionSchema}. */
export type Action = z.infer<typeof ActionSchema>;

/**
 * What an environment failure looked like to the caller: the episode ended because the sandbox
 * cut it (`timeout`, `crash`, `memory_limit`, …; see `SandboxFailureKind`).
 */
export const FailureSchema = z.object({ kind: z.string(), message: z.string() }).strict();

/**
 * The observation of a step (OpenEnv's `observation` dict): the environment's text, and in
 * `metadata` what OpenEnv has no field for: Gymnasium's `terminated` and `truncated` (OpenEnv's
 * `done` is their disjunction), the step's `info`, the episode's clipped `return` and `won` once
 * it is done, and `failure` when the sandbox cut the episode.
 */
export const ObservationSchema = z
  .object({
    text: z.string(),
    metadata: z
      .object({
        env_id: z.string(),
        env_name: z.string(),
        episode_id: z.string(),
        seed: z.number().int(),
        /** The level the instance was built at; present for levelled families only (as `Episode.level`). */
        level: z.number().int().min(0).optional(),
        step: z.number().int().min(0),
        terminated: z.boolean(),
        truncated: z.boolean(),
        info: z.record(z.string(), z.unknown()),
        return: z.number().optional(),
        won: z.boolean().optional(),
        failure: FailureSchema.optional(),
      })
      .strict(),
  })
  .strict();

/** Parsed {@link ObservationSchema}. */
export type Observation = z.infer<typeof ObservationSchema>;

/** What a reset or step answers (`data` of an `observation` frame; the body of `/reset`, `/step`). */
export interface StepPayload {
  readonly observation: Observation;
  /** The step reward; 0 after a reset. */
  readonly reward: number;
  /** `terminated || truncated`, or the sandbox cut the episode. */
  readonly done: boolean;
}

/**
 * A session's state (OpenEnv's `State`: `episode_id`, `step_count`, and extra fields): the
 * environment, seed, level (null before a reset and for a family of one level), whether the
 * episode is over and the sum of its step rewards so far.
 */
export const StateSchema = z
  .object({
    episode_id: z.string().nullable(),
    step_count: z.number().int().min(0),
    session_id: z.string(),
    env_id: z.string().nullable(),
    env_name: z.string().nullable(),
    seed: z.number().int().nullable(),
    level: z.number().int().min(0).nullable(),
    done: z.boolean(),
    terminated: z.boolean(),
    truncated: z.boolean(),
    total_reward: z.number(),
  })
  .strict();

/** Parsed {@link StateSchema}. */
export type State = z.infer<typeof StateSchema>;

/** `POST /step` body (OpenEnv's `StepRequest`, extra keys allowed) with envforge's `episode_id` naming the HTTP episode. */
export const StepRequestSchema = z
  .object({
    action: z.record(z.string(), z.unknown()),
    timeout_s: z.number().positive().nullish(),
    request_id: z.string().max(255).nullish(),
    episode_id: z.string().min(1).max(255).nullish(),
  })
  .loose();

/**
 * One incoming WebSocket frame: OpenEnv's `WSResetMessage | WSStepMessage | WSStateMessage |
 * WSCloseMessage`, discriminated by `type`. Top-level keys other than `type` and `data` are refused.
 */
export const IncomingFrameSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("reset"), data: z.record(z.string(), z.unknown()).default({}) }).strict(),
  z.object({ type: z.literal("step"), data: z.record(z.string(), z.unknown()) }).strict(),
  z.object({ type: z.literal("state") }).strict(),
  z.object({ type: z.literal("close") }).strict(),
]);

/** Parsed {@link IncomingFrameSchema}. */
export type IncomingFrame = z.infer<typeof IncomingFrameSchema>;

/** The frame types OpenEnv's WebSocket endpoint knows. */
export const FRAME_TYPES: ReadonlySet<string> = new Set(["reset", "step", "state", "close"]);

/** An outgoing WebSocket frame. */
export type OutgoingFrame =
  | { readonly type: "observation"; readonly data: StepPayload }
  | { readonly type: "state"; readonly data: State }
  | { readonly type: "error"; readonly data: ErrorData };

/** `data` of an error frame: OpenEnv's `message` and `code`, and envforge's `reason` (and `retry_after_ms` for rate limits). */
export interface ErrorData {
  readonly message: string;
  readonly code: OpenEnvErrorCode;
  readonly reason: string;
  readonly retry_after_ms?: number;
  readonly [key: string]: unknown;
}

/** `GET /schema` (OpenEnv's `SchemaResponse`): JSON schemas of the action, the observation and the state. */
export function wireSchemas(): { action: unknown; observation: unknown; state: unknown } {
  return { action: z.toJSONSchema(ActionSchema), observation: z.toJSONSchema(ObservationSchema), state: z.toJSONSchema(StateSchema) };
}
