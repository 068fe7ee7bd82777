import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { SuiteError, type ItemErrorCode, type ItemScore, type QuestionSuite, type SuiteErrorCode, type SuiteInfo, type SuiteItem, type TaskItemsRequest } from "../../../spec/index.js";

/** The bridge program (next to this module in `src/` and, copied by the build, in `dist/`). */
export const REASONING_GYM_BRIDGE = join(dirname(fileURLToPath(import.meta.url)), "rg_bridge.py");

/** The virtualenv scripts/setup.sh installs Reasoning Gym into (step 2d). */
export const EVAL_VENV_PYTHON = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../.venv-eval/bin/python");

/** Options of {@link ReasoningGymSuite}. */
export interface ReasoningGymSuiteOptions {
  /** Interpreter with `reasoning_gym` installed. @default .venv-eval/bin/python */
  readonly python?: string;
  /** Longest wait for one answer of the bridge (generation of a task's items, or one scorer call), milliseconds. @default 60000 */
  readonly requestTimeoutMs?: number;
}

interface Pending {
  readonly resolve: (answer: Record<string, unknown>) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout;
}

const BRIDGE_ITEM_ERRORS: ReadonlySet<string> = new Set<ItemErrorCode>(["scorer_crashed", "scorer_invalid", "unknown_task", "invalid_config", "generation_failed"]);
const BRIDGE_SUITE_ERRORS: ReadonlySet<string> = new Set<SuiteErrorCode>(["unknown_task", "invalid_config", "generation_failed"]);

/**
 * {@link QuestionSuite} over Reasoning Gym (`reasoning-gym` on PyPI, pinned in
 * scripts/eval-requirements.txt): a long-lived Python bridge (`rg_bridge.py`) speaking JSON
 * lines over stdin/stdout generates items with `create_dataset` and scores answers with the
 * task's own `score_answer`. A scorer that raises, or returns something that is not a number
 * in [0, 1], is a per-item `error` outcome; a scorer that hangs or kills the bridge is too
 * (`scorer_crashed`), and the next request starts a fresh bridge.
 */
export class ReasoningGymSuite implements QuestionSuite {
  readonly name = "reasoning-gym";
  private readonly python: string;
  private readonly requestTimeoutMs: number;
  private child: ChildProcessWithoutNullStreams | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private stderrTail = "";
  private cachedInfo: Promise<SuiteInfo> | null = null;

  constructor(options: ReasoningGymSuiteOptions = {}) {
    this.python = options.python ?? EVAL_VENV_PYTHON;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 60_000;
  }

  /** @throws SuiteError `suite_unavailable` when Reasoning Gym is not installed (run ./scripts/setup.sh) */
  info(): Promise<SuiteInfo> {
    this.cachedInfo ??= this.request({ op: "info" }).then(
      (answer) => ({ version: String(answer.version), systemPrompt: String(answer.systemPrompt), tasks: answer.tasks as SuiteInfo["tasks"] }),
      (error: unknown) => {
        this.cachedInfo = null;
        throw error;
      },
    );
    return this.cachedInfo;
  }

  /** @throws SuiteError `unknown_task`, `invalid_config`, `generation_failed`, `suite_unavailable` or `suite_protocol` */
  async generate(request: TaskItemsRequest): Promise<SuiteItem[]> {
    const answer = await this.request({ op: "generate", ...request });
    if (!Array.isArray(answer.items)) throw new SuiteError("suite_protocol", "the Reasoning Gym bridge answered generate without items");
    return answer.items as SuiteItem[];
  }

  async score(request: TaskItemsRequest, index: number, answer: string | null): Promise<ItemScore> {
    try {
      const reply = await this.request({ op: "score", ...request, index, answer });
      const score = reply.score;
      if (typeof score !== "number" || !(score >= 0 && score <= 1)) return { kind: "error", code: "scorer_invalid", message: `the scorer of ${request.task} returned ${JSON.stringify(score)}` };
      return { kind: "ok", score };
    } catch (error) {
      if (error instanceof BridgeItemError) return { kind: "error", code: error.itemCode, message: error.message };
      if (error instanceof SuiteError && error.code === "suite_protocol") return { kind: "error", code: "scorer_crashed", message: error.message };
      throw error;
    }
  }

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
    if (!existsSync(this.python)) {
      throw new SuiteError("suite_unavailable", `Reasoning Gym's Python (${this.python}) is missing; run ./scripts/setup.sh (without ENVFORGE_SKIP_EVAL=1)`);
    }
    const child = spawn(this.python, ["-I", "-W", "ignore", REASONING_GYM_BRIDGE], { stdio: ["pipe", "pipe", "pipe"] });
    this.child = child;
    this.stderrTail = "";
    child.stderr.on("data", (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString("utf8")).slice(-2000);
    });
    createInterface({ input: child.stdout }).on("line", (line) => this.answer(line));
    child.on("exit", (code, signal) => {
      if (this.child === child) this.child = null;
      this.failAll(new SuiteError("suite_protocol", `the Reasoning Gym bridge exited (${signal ?? `code ${code}`}): ${this.stderrTail.trim().split("\n").slice(-3).join(" | ")}`, { retryable: true }));
    });
    child.on("error", (error) => {
      if (this.child === child) this.child = null;
      this.failAll(new SuiteError("suite_unavailable", `cannot start ${this.python}: ${error.message}`, { cause: error }));
    });
    return child;
  }

  private request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    let child: ChildProcessWithoutNullStreams;
    try {
      child = this.start();
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const id = this.nextId++;
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        // a hung scorer holds the bridge: kill it; the next request starts a fresh one
        if (this.child === child) this.child = null;
        child.kill("SIGKILL");
        reject(new SuiteError("suite_protocol", `the Reasoning Gym bridge gave no answer to ${String(body.op)} ${String(body.task ?? "")} within ${this.requestTimeoutMs} ms`, { retryable: true }));
      }, this.requestTimeoutMs);
      this.pending.set(id, { resolve: resolvePromise, reject, timer });
      child.stdin.write(`${JSON.stringify({ id, ...body })}\n`);
    });
  }

  private answer(line: string): void {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    const pending = typeof parsed.id === "number" ? this.pending.get(parsed.id) : undefined;
    if (pending === undefined) return;
    this.pending.delete(parsed.id as number);
    clearTimeout(pending.timer);
    if (parsed.ok === true) {
      pending.resolve(parsed);
      return;
    }
    const error = (parsed.error ?? {}) as { code?: unknown; message?: unknown };
    const code = String(error.code ?? "suite_protocol");
    const message = String(error.message ?? "the bridge answered an error without a message");
    if (code === "scorer_crashed" || code === "scorer_invalid") pending.reject(new BridgeItemError(code, message));
    else if (BRIDGE_SUITE_ERRORS.has(code)) pending.reject(new SuiteError(code as SuiteErrorCode, message));
    else if (BRIDGE_ITEM_ERRORS.has(code)) pending.reject(new BridgeItemError(code as ItemErrorCode, message));
    else pending.reject(new SuiteError("suite_protocol", `${code}: ${message}`));
  }

  private failAll(error: Error): void {
    for (const [id, pending] of this.pending) {
      clearTimeout(pending.timer);
      pending.reject(error);
      this.pending.delete(id);
    }
  }
}

/** A per-item failure the bridge reported (internal: {@link ReasoningGymSuite.score} turns it into an outcome). */
class BridgeItemError extends Error {
  constructor(
    readonly itemCode: ItemErrorCode,
    message: string,
  ) {
    super(message);
  }
}
