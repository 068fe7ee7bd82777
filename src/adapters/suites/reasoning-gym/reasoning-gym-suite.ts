import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SuiteError, type ItemErrorCode, type ItemScore, type QuestionSuite, type SuiteErrorCode, type SuiteInfo, type SuiteItem, type TaskItemsRequest } from "../../../spec/index.js";
import { JsonLinesError, JsonLinesProcess } from "../../../support/json-lines-process.js";

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
  private readonly bridge: JsonLinesProcess;
  private cachedInfo: Promise<SuiteInfo> | null = null;

  constructor(options: ReasoningGymSuiteOptions = {}) {
    const python = options.python ?? EVAL_VENV_PYTHON;
    this.bridge = new JsonLinesProcess({
      name: "the Reasoning Gym bridge",
      command: python,
      args: ["-I", "-W", "ignore", REASONING_GYM_BRIDGE],
      missingMessage: `Reasoning Gym's Python (${python}) is missing; run ./scripts/setup.sh (without ENVFORGE_SKIP_EVAL=1)`,
      requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    });
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
    await this.bridge.close();
  }

  /** One bridge request; its failures as {@link SuiteError}s (per-item ones as {@link BridgeItemError}s). */
  private async request(body: Record<string, unknown>): Promise<Record<string, unknown>> {
    try {
      return await this.bridge.request(body, `${String(body.op)} ${String(body.task ?? "")}`.trim());
    } catch (error) {
      if (!(error instanceof JsonLinesError)) throw error;
      const failure = error.failure;
      if (failure.kind === "unavailable") throw new SuiteError("suite_unavailable", failure.message, { cause: error });
      if (failure.kind === "protocol") throw new SuiteError("suite_protocol", failure.message, { retryable: true, cause: error });
      const { code, message } = failure;
      if (code === "scorer_crashed" || code === "scorer_invalid") throw new BridgeItemError(code, message);
      if (BRIDGE_SUITE_ERRORS.has(code)) throw new SuiteError(code as SuiteErrorCode, message);
      if (BRIDGE_ITEM_ERRORS.has(code)) throw new BridgeItemError(code as ItemErrorCode, message);
      throw new SuiteError("suite_protocol", `${code}: ${message}`);
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
