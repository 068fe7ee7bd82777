import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";

/** How a {@link JsonLinesProcess} request failed. */
export type JsonLinesFailure =
  /** The program answered `{"ok": false, "error": {code, message}}`: its own, typed refusal. */
  | { readonly kind: "answered"; readonly code: string; readonly message: string }
  /** The program is missing or cannot start. */
  | { readonly kind: "unavailable"; readonly message: string }
  /** The program exited, or gave no answer in time (it is then killed; the next request starts a fresh one). */
  | { readonly kind: "protocol"; readonly message: string };

/** A failed {@link JsonLinesProcess.request}: `failure` says how. */
export class JsonLinesError extends Error {
  constructor(readonly failure: JsonLinesFailure) {
    super(failure.message);
    this.name = "JsonLinesError";
  }
}

/** Options of {@link JsonLinesProcess}. */
export interface JsonLinesProcessOptions {
  /** What the program is, for messages, e.g. `the Reasoning Gym bridge`. */
  readonly name: string;
  /** The interpreter or executable. */
  readonly command: string;
  readonly args: readonly string[];
  /** Said when `command` does not exist, e.g. how to install it. */
  readonly missingMessage: string;
  /** Longest wait for one answer, milliseconds. */
  readonly requestTimeoutMs: number;
  /** Extra environment variables for the program. @default none (the parent's environment) */
  readonly env?: Readonly<Record<string, string>>;
}

interface Pending {
  readonly resolve: (answer: Record<string, unknown>) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
  /** The child the request was written to: only its exit fails the request. */
  readonly child: ChildProcessWithoutNullStreams;
}

/**
 * A long-lived child program spoken to in JSON lines: each request is one line
 * `{"id": N, ...body}`, each answer one line `{"id": N, "ok": true, ...}` or
 * `{"id": N, "ok": false, "error": {"code", "message"}}` (the protocol of envforge's Python
 * bridges to the field's suites: Reasoning Gym, BFCL). Started at the first request; a program
 * that exits or does not answer within `requestTimeoutMs` fails the requests waiting on it (it is
 * killed), and the next request starts a fresh one. Lines that are not JSON, or answer no waiting
 * request, are ignored; the last 2,000 characters of stderr are quoted when it exits.
 */
export class JsonLinesProcess {
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderrTail = "";

  constructor(private readonly options: JsonLinesProcessOptions) {}

  /**
   * Sends `body` and waits for its answer (the answer's fields, `ok` and `id` included).
   * @throws JsonLinesError with the program's own error (`answered`), `unavailable` or `protocol`
   */
  request(body: Record<string, unknown>, describe = String(body.op ?? "a request")): Promise<Record<string, unknown>> {
    const id = this.nextId++;
    let line: string;
    let child: ChildProcessWithoutNullStreams;
    try {
      // serialised before anything waits on it: a body JSON cannot write (too deep) fails this request alone
      line = `${JSON.stringify({ ...body, id })}\n`;
      child = this.start();
    } catch (error) {
      return Promise.reject(error instanceof JsonLinesError ? error : new JsonLinesError({ kind: "protocol", message: `${describe} cannot be sent to ${this.options.name}: ${(error as Error).message}` }));
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        // a hung program holds every later request: kill it; the next request starts a fresh one
        if (this.child === child) this.child = null;
        child.kill("SIGKILL");
        reject(new JsonLinesError({ kind: "protocol", message: `${this.options.name} gave no answer to ${describe} within ${this.options.requestTimeoutMs} ms` }));
      }, this.options.requestTimeoutMs);
      this.pending.set(id, { resolve, reject, timer, child });
      child.stdin.write(line);
    });
  }

  /** Closes the program's stdin and waits for it to exit (killing it after 2 s). Idempotent. */
  async close(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (child === null) return;
    const exited = new Promise<void>((done) => child.once("exit", () => done()));
    child.stdin.end();
    const timer = setTimeout(() => child.kill("SIGKILL"), 2000);
    await exited;
    clearTimeout(timer);
  }

  private start(): ChildProcessWithoutNullStreams {
    if (this.child !== null) return this.child;
    if (!existsSync(this.options.command)) throw new JsonLinesError({ kind: "unavailable", message: this.options.missingMessage });
    const child = spawn(this.options.command, [...this.options.args], { stdio: ["pipe", "pipe", "pipe"], ...(this.options.env === undefined ? {} : { env: { ...process.env, ...this.options.env } }) });
    this.child = child;
    this.stderrTail = "";
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    createInterface({ input: child.stdout }).on("line", (line) => this.answer(line));
    // a child that dies while a request is being written (EPIPE) fails through its exit, never the process
    child.stdin.on("error", () => undefined);
    child.on("exit", (code, signal) => {
      if (this.child === child) this.child = null;
      this.failAll(child, { kind: "protocol", message: `${this.options.name} exited (${signal ?? `code ${code}`}): ${this.stderrTail.trim().split("\n").slice(-3).join(" | ")}` });
    });
    child.on("error", (error) => {
      if (this.child === child) this.child = null;
      this.failAll(child, { kind: "unavailable", message: `cannot start ${this.options.command}: ${error.message}` });
    });
    return child;
  }

  private answer(line: string): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) return;
    const answer = parsed as Record<string, unknown>;
    const pending = typeof answer.id === "number" ? this.pending.get(answer.id) : undefined;
    if (pending === undefined) return;
    this.pending.delete(answer.id as number);
    clearTimeout(pending.timer);
    if (answer.ok === true) {
      pending.resolve(answer);
      return;
    }
    const error = (typeof answer.error === "object" && answer.error !== null ? answer.error : {}) as { code?: unknown; message?: unknown };
    pending.reject(new JsonLinesError({ kind: "answered", code: String(error.code ?? "protocol"), message: String(error.message ?? "the program answered an error without a message") }));
  }

  /** Fails the requests written to `child` (a later child's requests are not its). */
  private failAll(child: ChildProcessWithoutNullStreams, failure: JsonLinesFailure): void {
    for (const [id, pending] of this.pending) {
      if (pending.child !== child) continue;
      clearTimeout(pending.timer);
      pending.reject(new JsonLinesError(failure));
      this.pending.delete(id);
    }
  }
}
