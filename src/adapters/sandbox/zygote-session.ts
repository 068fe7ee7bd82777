import { z } from "zod";
import { ToolCallSchema, type ActionRun, type EnvAction, type EnvProgram, type EnvSession, type SandboxOutcome, type StepResult } from "../../spec/index.js";
import type { ChildMessage, Jail } from "./jail.js";
import type { ChildFailure } from "./zygote-process.js";
import { zygoteLimits, type SandboxLimits } from "./limits.js";

const FailureReply = z.object({
  ok: z.literal(false),
  kind: z.enum(["timeout", "cpu_limit", "memory_limit", "crash", "protocol_violation", "output_limit", "forbidden"]),
  message: z.string(),
  detail: z.string().optional(),
});
const LoadReply = z.object({ ok: z.literal(true) }).strict();
const ResetReply = z.object({ ok: z.literal(true), observation: z.string() }).strict();
const StepReply = z
  .object({
    ok: z.literal(true),
    observation: z.string(),
    reward: z.number().finite(),
    terminated: z.boolean(),
    truncated: z.boolean(),
    info: z.record(z.string(), z.unknown()),
  })
  .strict();
const StepsReply = z.object({ ok: z.literal(true), steps: z.array(StepReply.omit({ ok: true })) }).strict();
const OracleReply = z.object({ ok: z.literal(true), action: z.union([z.string(), ToolCallSchema]) }).strict();

/** Where a session's jails come from (the backend's pool). */
export interface JailSource {
  /** A live jail that accepts new episodes, for the session's worker slot. */
  jailFor(slot: number): Jail;
  /** A fresh child id, unique in every jail of the pool. */
  nextId(): number;
  /** Called once per started episode (recycling counts these). */
  episodeStarted(jail: Jail): void;
  /**
   * The id of `program` loaded in `jail`, shared by every session of the same sources and
   * limits there: `load` runs only when no session holds a copy (or its load failed), and
   * concurrent callers wait for the same load. Each `ok` result must be given back once
   * with {@link releaseProgram}.
   */
  acquireProgram(jail: Jail, key: string, load: () => Promise<SandboxOutcome<number>>): Promise<SandboxOutcome<number>>;
  /** Gives back one hold on a shared program; the last one tells the zygote to forget it (and its spare). */
  releaseProgram(jail: Jail, programId: number): void;
}

interface Episode {
  readonly jail: Jail;
  readonly id: number;
  failure: ChildFailure | null;
  pending: ((message: ChildMessage | { kind: "timeout" }) => void) | null;
}

/** Nesting depth of a JSON value (scalars 0, `{}` 1), computed without recursion; stops counting past `limit`. */
export function infoDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (item === null || typeof item !== "object") continue;
    deepest = Math.max(deepest, depth);
    if (deepest > limit) return deepest;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, depth + 1]);
  }
  return deepest;
}

/**
 * A session of one environment program served by a zygote. The program is
 * loaded once per jail (a probe child compiles and imports it; the zygote keeps
 * the compiled template); every `reset` forks a fresh episode process from that
 * template, so nothing leaks between episodes through module globals or files.
 * After a non-`ok` outcome the episode is over: `step` and `oracleAction`
 * return the same failure until the next `reset`, which starts a clean episode.
 */
export class ZygoteSession implements EnvSession {
  private loaded: { jail: Jail; programId: number } | null = null;
  private episode: Episode | null = null;
  private closed = false;

  /**
   * @param slot the worker slot (jail) this session is pinned to
   * @param onClose called once when the session is closed (the backend's bookkeeping)
   */
  constructor(
    private readonly jails: JailSource,
    private readonly slot: number,
    private readonly program: EnvProgram,
    private readonly limits: SandboxLimits,
    private readonly onClose: (session: ZygoteSession) => void = () => undefined,
  ) {}

  /**
   * Loads the program into the slot's current jail; the first call of every session. Sessions
   * of the same sources in one jail share the loaded program (one probe, one spare).
   */
  async load(): Promise<SandboxOutcome<void>> {
    const bytes = Buffer.byteLength(this.program.envSource) + Buffer.byteLength(this.program.oracleSource ?? "");
    if (bytes > this.limits.maxSourceBytes) {
      return { kind: "protocol_violation", message: `program source of ${bytes} bytes exceeds ${this.limits.maxSourceBytes}` };
    }
    this.releaseLoaded();
    const jail = this.jails.jailFor(this.slot);
    const request = JSON.stringify({ env: this.program.envSource, oracle: this.program.oracleSource, limits: zygoteLimits(this.limits) });
    const outcome = await this.jails.acquireProgram(jail, request, async () => {
      const programId = this.jails.nextId();
      const probe: Episode = { jail, id: programId, failure: null, pending: null };
      const loaded = await this.call(probe, "load", () => jail.send(programId, "L", request), LoadReply, () => programId);
      await jail.end(programId);
      return loaded;
    });
    if (outcome.kind !== "ok") return outcome;
    if (this.closed) {
      this.jails.releaseProgram(jail, outcome.value);
      return { kind: "protocol_violation", message: "session closed" };
    }
    this.loaded = { jail, programId: outcome.value };
    return { kind: "ok", value: undefined };
  }

  /** Gives back this session's hold on its loaded program, if it has one. */
  private releaseLoaded(): void {
    if (this.loaded === null) return;
    this.jails.releaseProgram(this.loaded.jail, this.loaded.programId);
    this.loaded = null;
  }

  async reset(seed: number, level?: number): Promise<SandboxOutcome<string>> {
    if (this.closed) return { kind: "protocol_violation", message: "session closed" };
    // the zygote handles messages in order: the previous episode ends before the next one starts,
    // so its confirmation need not be awaited here
    void this.endEpisode();
    const jail = this.jails.jailFor(this.slot);
    if (this.loaded?.jail !== jail) {
      const loaded = await this.load();
      if (loaded.kind !== "ok") return loaded;
    }
    const { programId } = this.loaded as { programId: number };
    const id = this.jails.nextId();
    const episode: Episode = { jail, id, failure: null, pending: null };
    this.episode = episode;
    this.jails.episodeStarted(jail);
    const request = { program: programId, seed, ...(level === undefined ? {} : { level }), limits: zygoteLimits(this.limits) };
    return this.call(episode, "reset", () => jail.start(id, request), ResetReply, (reply) => this.capObservation(reply.observation));
  }

  async step(action: EnvAction): Promise<SandboxOutcome<StepResult>> {
    return this.request({ op: "step", action }, "step", StepReply, (reply) => this.checkStep(reply));
  }

  async runActions(seed: number, actions: readonly string[], level?: number): Promise<SandboxOutcome<ActionRun>> {
    const reset = await this.reset(seed, level);
    if (reset.kind !== "ok") return reset;
    return this.request({ op: "steps", actions }, "steps", StepsReply, (reply) => {
      const steps: StepResult[] = [];
      for (const raw of reply.steps) {
        const checked = this.checkStep(raw);
        if (checked.kind !== "ok") return checked;
        steps.push(checked.value);
      }
      return { kind: "ok", value: { initialObservation: reset.value, steps } };
    });
  }

  /** Supervisor-side checks of one step reply: declared reward range, info depth; caps the observation. */
  private checkStep(reply: z.infer<typeof StepReply> | Omit<z.infer<typeof StepReply>, "ok">): SandboxOutcome<StepResult> {
    const range = this.program.rewardRange;
    if (range !== undefined && (reply.reward < range[0] || reply.reward > range[1])) {
      return { kind: "reward_out_of_range", message: `step reward ${reply.reward} is outside the declared range [${range[0]}, ${range[1]}]` };
    }
    if (infoDepth(reply.info, this.limits.maxInfoDepth) > this.limits.maxInfoDepth) {
      return { kind: "protocol_violation", message: `info is nested deeper than ${this.limits.maxInfoDepth} levels` };
    }
    return {
      kind: "ok",
      value: {
        observation: this.capObservation(reply.observation),
        reward: reply.reward,
        terminated: reply.terminated,
        truncated: reply.truncated,
        info: reply.info,
      },
    };
  }

  async oracleAction(observation: string): Promise<SandboxOutcome<EnvAction>> {
    return this.request({ op: "oracle", observation }, "oracle", OracleReply, (reply) => ({ kind: "ok", value: reply.action }));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    await this.endEpisode();
    this.releaseLoaded();
  }

  private async request<S extends z.ZodType, T>(
    message: Record<string, unknown>,
    op: string,
    schema: S,
    check: (reply: z.infer<S>) => SandboxOutcome<T>,
  ): Promise<SandboxOutcome<T>> {
    const episode = this.episode;
    if (this.closed) return { kind: "protocol_violation", message: "session closed" };
    if (episode === null) return { kind: "protocol_violation", message: `${op} before reset` };
    if (episode.failure !== null) return this.failed(episode.failure);
    const payload = Buffer.from(JSON.stringify(message), "utf8");
    if (payload.length > this.limits.maxRequestBytes) {
      return { kind: "protocol_violation", message: `${op} request of ${payload.length} bytes exceeds ${this.limits.maxRequestBytes}` };
    }
    const outcome = await this.call(episode, op, () => episode.jail.request(episode.id, payload), schema, (reply) => reply);
    if (outcome.kind !== "ok") return outcome;
    const checked = check(outcome.value);
    if (checked.kind !== "ok") await this.fail(episode, checked);
    return checked;
  }

  /** Sends one request and waits for its reply, a failure, or the wall-clock timer. */
  private async call<S extends z.ZodType, T>(
    episode: Episode,
    op: string,
    send: () => void,
    schema: S,
    map: (reply: z.infer<S>) => T,
  ): Promise<SandboxOutcome<T>> {
    const message = await new Promise<ChildMessage | { kind: "timeout" }>((resolve) => {
      const timer = setTimeout(() => resolve({ kind: "timeout" }), this.limits.callTimeoutMs);
      episode.pending = (event) => {
        clearTimeout(timer);
        episode.pending = null;
        resolve(event);
      };
      episode.jail.listen(episode.id, (event) => {
        if (episode.pending) episode.pending(event);
        else if (event.kind === "failed") episode.failure ??= event.failure;
      });
      send();
    });
    episode.pending = null;
    if (message.kind === "timeout") {
      return this.fail(episode, { kind: "timeout", message: `no reply to ${op} within ${this.limits.callTimeoutMs} ms` });
    }
    if (message.kind === "failed") return this.fail(episode, message.failure);
    let frame: unknown;
    try {
      frame = JSON.parse(message.payload.toString("utf8"));
    } catch (error) {
      return this.fail(episode, { kind: "protocol_violation", message: `reply is not JSON: ${(error as Error).message}` });
    }
    // only a frame with ok: false can be a failure report (saves a schema pass on every ok reply)
    const failure = typeof frame === "object" && frame !== null && (frame as { ok?: unknown }).ok === false ? FailureReply.safeParse(frame) : null;
    if (failure?.success) {
      const { kind, message: text, detail } = failure.data;
      return this.fail(episode, detail === undefined || detail === "" ? { kind, message: text } : { kind, message: text, detail });
    }
    const ok = schema.safeParse(frame);
    if (!ok.success) {
      return this.fail(episode, { kind: "protocol_violation", message: `malformed reply: ${ok.error.message.slice(0, 500)}` });
    }
    return { kind: "ok", value: map(ok.data) };
  }

  /** Records the episode's failure, ends its process, and returns the failure outcome. */
  private async fail(episode: Episode, failure: ChildFailure): Promise<SandboxOutcome<never>> {
    episode.failure ??= failure;
    await episode.jail.end(episode.id);
    return this.failed(episode.failure);
  }

  private failed(failure: ChildFailure): SandboxOutcome<never> {
    return failure.detail === undefined
      ? { kind: failure.kind, message: failure.message }
      : { kind: failure.kind, message: failure.message, detail: failure.detail };
  }

  private async endEpisode(): Promise<void> {
    const episode = this.episode;
    this.episode = null;
    if (episode !== null) await episode.jail.end(episode.id);
  }

  private capObservation(observation: string): string {
    const cap = this.limits.maxObservationChars;
    return observation.length <= cap ? observation : `${observation.slice(0, cap)}\n[observation truncated at ${cap} characters]`;
  }
}
