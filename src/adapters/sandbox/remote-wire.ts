import { z } from "zod";
import { ToolCallSchema, type SandboxFailureKind } from "../../spec/index.js";

/**
 * The sandbox-worker protocol of `envforge serve` (WebSocket `GET /v1/sandbox`), spoken by the
 * `remote` sandbox backend. One connection is one {@link EnvSession}: the first frame `open`s a
 * program sent inline (env and oracle sources), then `reset`, `step`, `run_actions` and
 * `oracle_action` frames drive it, each answered in order by an `outcome` frame whose `data` is
 * the server sandbox's {@link SandboxOutcome}, passed on unchanged (kind, message, detail), so
 * a remote outcome is the outcome a local jail gives. A frame the server refuses (malformed, too
 * large, out of order) is answered by an OpenEnv-style `error` frame (`code`, `reason`,
 * `message`) and the session goes on. `close`, or the connection closing, ends the session.
 *
 * Frames (client → server), `data` in camelCase as {@link EnvProgram}:
 * `{"type":"open","data":{"envSource","oracleSource","rewardRange"?}}`,
 * `{"type":"reset","data":{"seed","level"?}}`, `{"type":"step","data":{"action"}}`,
 * `{"type":"run_actions","data":{"seed","level"?,"actions"}}`, `{"type":"oracle_action","data":{"observation"}}`,
 * `{"type":"close"}`.
 */
export const SANDBOX_WORKER_PATH = "/v1/sandbox";

const seed = z.number().int().min(Number.MIN_SAFE_INTEGER).max(Number.MAX_SAFE_INTEGER);
/** A level argument of `reset` (levelled families); the program's manifest decides which levels exist. */
const level = z.number().int().min(0).max(1_000_000).optional();

/** One frame a client sends to `/v1/sandbox`; keys other than `type` and `data` are refused. */
export const WorkerRequestSchema = z.discriminatedUnion("type", [
  z
    .object({
      type: z.literal("open"),
      data: z
        .object({
          envSource: z.string(),
          oracleSource: z.string().nullable(),
          rewardRange: z
            .tuple([z.number().finite(), z.number().finite()])
            .refine(([low, high]) => low < high, "rewardRange must satisfy low < high")
            .optional(),
        })
        .strict(),
    })
    .strict(),
  z.object({ type: z.literal("reset"), data: z.object({ seed, level }).strict() }).strict(),
  z.object({ type: z.literal("step"), data: z.object({ action: z.union([z.string(), ToolCallSchema]) }).strict() }).strict(),
  z.object({ type: z.literal("run_actions"), data: z.object({ seed, level, actions: z.array(z.string()).max(100_000) }).strict() }).strict(),
  z.object({ type: z.literal("oracle_action"), data: z.object({ observation: z.string() }).strict() }).strict(),
  z.object({ type: z.literal("close") }).strict(),
]);

/** Parsed {@link WorkerRequestSchema}. */
export type WorkerRequest = z.infer<typeof WorkerRequestSchema>;

/** The frame types `/v1/sandbox` knows. */
export const WORKER_REQUEST_TYPES: ReadonlySet<string> = new Set(["open", "reset", "step", "run_actions", "oracle_action", "close"]);

const FAILURE_KINDS = ["timeout", "cpu_limit", "memory_limit", "crash", "protocol_violation", "reward_out_of_range", "output_limit", "forbidden"] as const satisfies readonly SandboxFailureKind[];

const FailureSchema = z.object({ kind: z.enum(FAILURE_KINDS), message: z.string(), detail: z.string().optional() }).strict();

/** A {@link SandboxOutcome} of values matching `value`, as an `outcome` frame carries it. */
function outcomeSchema<V extends z.ZodType>(value: V) {
  return z.union([z.object({ kind: z.literal("ok"), value }).strict(), FailureSchema]);
}

/** A {@link StepResult} on the wire. */
export const StepResultSchema = z
  .object({ observation: z.string(), reward: z.number().finite(), terminated: z.boolean(), truncated: z.boolean(), info: z.record(z.string(), z.unknown()) })
  .strict();

/** `data` of the `outcome` frame answering each request type (`open` answers `value: null`). */
export const WORKER_OUTCOME_SCHEMAS = {
  open: outcomeSchema(z.null()),
  reset: outcomeSchema(z.string()),
  step: outcomeSchema(StepResultSchema),
  run_actions: outcomeSchema(z.object({ initialObservation: z.string(), steps: z.array(StepResultSchema) }).strict()),
  oracle_action: outcomeSchema(z.union([z.string(), ToolCallSchema])),
} as const;

/** A request type that is answered by an `outcome` frame. */
export type WorkerCall = keyof typeof WORKER_OUTCOME_SCHEMAS;
