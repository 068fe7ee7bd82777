import { spawn, type ChildProcess } from "node:child_process";
import { z } from "zod";
import type {
  EnvProgram,
  EnvSession,
  SandboxFailureKind,
  SandboxOutcome,
  StepResult,
} from "../../spec/index.js";
import { encodeFrame, FrameDecoder } from "./frames.js";
import type { SandboxLimits } from "./limits.js";

const FailureReply = z.object({
  ok: z.literal(false),
  kind: z.enum(["timeout", "cpu_limit", "memory_limit", "crash", "protocol_violation", "output_limit", "forbidden"]),
  message: z.string(),
  detail: z.string().optional(),
});
const LoadReply = z.object({ ok: z.literal(true) });
const ResetReply = z.object({ ok: z.literal(true), observation: z.string() });
const StepReply = z.object({
  ok: z.literal(true),
  observation: z.string(),
  reward: z.number().finite(),
  terminated: z.boolean(),
  truncated: z.boolean(),
  info: z.record(z.string(), z.unknown()),
});
const OracleReply = z.object({ ok: z.literal(true), action: z.string() });

type Failure = { readonly kind: SandboxFailureKind; readonly message: string; readonly detail?: string };

/** How to start the runner process (backend-specific argv). */
export interface RunnerCommand {
  readonly command: string;
  readonly args: readonly string[];
}

/**
 * A session speaking the runner protocol with one child process. The backend
 * decides how the child is isolated; this class enforces wall-clock timeouts,
 * byte caps and reply schemas from outside, and kills the whole process group on
 * any failure.
 */
export class RunnerSession implements EnvSession {
  private readonly child: ChildProcess;
  private readonly decoder: FrameDecoder;
  private stderrTail = "";
  private stderrBytes = 0;
  private dead: Failure | null = null;
  private pending: ((event: { frame?: unknown; failure?: Failure }) => void) | null = null;
  private killedFor: Failure | null = null;
  private exited = false;

  /**
   * Spawns the runner; call {@link RunnerSession.load} next.
   * @param onClose called once when the session is closed (the backend's bookkeeping)
   */
  constructor(
    command: RunnerCommand,
    private readonly limits: SandboxLimits,
    private readonly onClose: (session: RunnerSession) => void = () => undefined,
  ) {
    this.decoder = new FrameDecoder(limits.maxFrameBytes);
    this.child = spawn(command.command, [...command.args], {
      stdio: ["pipe", "pipe", "pipe"],
      detached: true,
      env: {},
    });
    this.child.stdout?.on("data", (chunk: Buffer) => this.onStdout(chunk));
    this.child.stderr?.on("data", (chunk: Buffer) => this.onStderr(chunk));
    this.child.stdin?.on("error", () => undefined);
    this.child.on("error", (error) => this.fail({ kind: "crash", message: `runner failed to start: ${error.message}` }));
    this.child.on("exit", (code, signal) => {
      this.exited = true;
      this.fail(this.exitFailure(code, signal));
    });
  }

  /** Loads the program; the first call of every session. */
  async load(program: EnvProgram): Promise<SandboxOutcome<void>> {
    const reply = await this.call({
      op: "load",
      env: program.envSource,
      oracle: program.oracleSource,
      limits: { memoryBytes: this.limits.memoryBytes, cpuSeconds: this.limits.cpuSeconds, fileBytes: this.limits.fileBytes },
    });
    return this.parse(reply, LoadReply, () => undefined);
  }

  async reset(seed: number): Promise<SandboxOutcome<string>> {
    const reply = await this.call({ op: "reset", seed });
    return this.parse(reply, ResetReply, (r) => this.capObservation(r.observation));
  }

  async step(action: string): Promise<SandboxOutcome<StepResult>> {
    const reply = await this.call({ op: "step", action });
    return this.parse(reply, StepReply, (r) => ({
      observation: this.capObservation(r.observation),
      reward: r.reward,
      terminated: r.terminated,
      truncated: r.truncated,
      info: r.info,
    }));
  }

  async oracleAction(observation: string): Promise<SandboxOutcome<string>> {
    const reply = await this.call({ op: "oracle", observation });
    return this.parse(reply, OracleReply, (r) => r.action);
  }

  async close(): Promise<void> {
    this.onClose(this);
    if (!this.exited) {
      this.child.stdin?.end(encodeFrame({ op: "close" }));
      this.kill({ kind: "protocol_violation", message: "session closed" });
    }
    this.dead ??= { kind: "protocol_violation", message: "session closed" };
  }

  private capObservation(observation: string): string {
    const cap = this.limits.maxObservationChars;
    return observation.length <= cap ? observation : `${observation.slice(0, cap)}\n[observation truncated at ${cap} characters]`;
  }

  private parse<S extends z.ZodType, T>(
    reply: { frame?: unknown; failure?: Failure },
    schema: S,
    map: (value: z.infer<S>) => T,
  ): SandboxOutcome<T> {
    if (reply.failure) return this.deadOutcome(reply.failure);
    const failure = FailureReply.safeParse(reply.frame);
    if (failure.success) {
      const { kind, message, detail } = failure.data;
      return this.deadOutcome(detail === undefined ? { kind, message } : { kind, message, detail });
    }
    const ok = schema.safeParse(reply.frame);
    if (!ok.success) {
      return this.deadOutcome({ kind: "protocol_violation", message: `malformed reply: ${ok.error.message.slice(0, 500)}` });
    }
    return { kind: "ok", value: map(ok.data) };
  }

  private deadOutcome(failure: Failure): SandboxOutcome<never> {
    this.kill(failure);
    this.dead ??= failure;
    const detail = failure.detail ?? (this.stderrTail || undefined);
    return detail === undefined ? { kind: failure.kind, message: failure.message } : { kind: failure.kind, message: failure.message, detail };
  }

  private call(request: Record<string, unknown>): Promise<{ frame?: unknown; failure?: Failure }> {
    if (this.dead) return Promise.resolve({ failure: this.dead });
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.fail({ kind: "timeout", message: `no reply to ${String(request.op)} within ${this.limits.callTimeoutMs} ms` });
      }, this.limits.callTimeoutMs);
      this.pending = (event) => {
        clearTimeout(timer);
        this.pending = null;
        resolve(event);
      };
      this.child.stdin?.write(encodeFrame(request));
    });
  }

  private onStdout(chunk: Buffer): void {
    for (const event of this.decoder.push(chunk)) {
      if (event.kind === "frame") {
        if (this.pending) this.pending({ frame: event.value });
        else this.fail({ kind: "protocol_violation", message: "unsolicited frame from the runner" });
      } else if (event.kind === "oversize") {
        this.fail({ kind: "output_limit", message: `reply of ${event.length} bytes exceeds ${this.limits.maxFrameBytes}` });
      } else {
        this.fail({ kind: "protocol_violation", message: event.message });
      }
    }
  }

  private onStderr(chunk: Buffer): void {
    this.stderrBytes += chunk.length;
    this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-4000);
    if (this.stderrBytes > this.limits.maxStderrBytes) {
      this.fail({ kind: "output_limit", message: `stderr exceeded ${this.limits.maxStderrBytes} bytes` });
    }
  }

  private exitFailure(code: number | null, signal: NodeJS.Signals | null): Failure {
    if (this.killedFor) return this.killedFor;
    if (signal === "SIGXCPU") return { kind: "cpu_limit", message: `CPU limit of ${this.limits.cpuSeconds} s exceeded` };
    const how = signal ? `signal ${signal}` : `exit code ${code}`;
    return { kind: "crash", message: `runner exited with ${how}`, detail: this.stderrTail };
  }

  /** Records the first failure, kills the process group and wakes a pending call. */
  private fail(failure: Failure): void {
    this.kill(failure);
    this.dead ??= failure;
    if (this.pending) this.pending({ failure: this.dead });
  }

  private kill(failure: Failure): void {
    if (this.exited) return;
    this.killedFor ??= failure;
    const pid = this.child.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, "SIGKILL");
    } catch {
      this.child.kill("SIGKILL");
    }
  }
}
