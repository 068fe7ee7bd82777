import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import {
  SuiteError,
  ToolDefinitionSchema,
  type BfclEntry,
  type EnvAction,
  type EnvPackage,
  type EnvProgram,
  type EnvSession,
  type Sandbox,
  type SandboxOutcome,
  type StepResult,
  type ToolDefinition,
} from "../../../spec/index.js";
import { JsonLinesError, JsonLinesProcess } from "../../../support/json-lines-process.js";

/** The bridge program (next to this module in `src/` and, copied by the build, in `dist/`). */
export const BFCL_BRIDGE = join(dirname(fileURLToPath(import.meta.url)), "bfcl_bridge.py");

/** The virtualenv scripts/setup.sh installs bfcl-eval into (pinned in scripts/bfcl-requirements.txt). */
export const BFCL_VENV_PYTHON = resolve(dirname(fileURLToPath(import.meta.url)), "../../../../.venv-bfcl/bin/python");

/**
 * BFCL v4's multi-turn categories envforge plays, 200 entries each (bfcl-eval 2026.3.23).
 * `multi_turn_miss_func` is left out: its held-out functions join the tools in the middle of an
 * episode, and an envforge episode's tools are its manifest's, fixed at reset.
 */
export const BFCL_CATEGORIES = ["multi_turn_base", "multi_turn_miss_param", "multi_turn_long_context"] as const;

/**
 * BFCL's `MAXIMUM_STEP_LIMIT`: steps one user turn may take; the step after it force-quits the entry (which then
 * fails unless it was the last turn). An episode's step cap is one more than the limit per user turn.
 */
export const BFCL_STEP_LIMIT = 20;

/** Longest observation passed on, characters (as the sandbox's `maxObservationChars`); a longer one is cut, and the cut said. */
export const BFCL_MAX_OBSERVATION_CHARS = 8000;

/** The hint of a BFCL entry: BFCL has none, so a with-hint play sees this line. */
export const BFCL_NO_HINT = "(this BFCL entry has no hint)";

/** Options of the BFCL bridge processes. */
export interface BfclBridgeOptions {
  /** Interpreter with bfcl-eval installed. @default .venv-bfcl/bin/python */
  readonly python?: string;
  /**
   * Longest wait for one answer (a call runs BFCL's executor; the last turn its checker), milliseconds: a call that
   * takes longer (BFCL's functions have no time limit) kills the bridge and the episode ends `crash`. @default 30000
   */
  readonly requestTimeoutMs?: number;
  /**
   * Steps per user turn before the entry is force-quit, 1 to {@link BFCL_STEP_LIMIT} (BFCL's own, the default); a
   * lower limit is a documented departure that bounds a looping model's time on a small machine. @default 20
   */
  readonly stepLimit?: number;
}

/** A bridge process: one per session (the bridge holds one episode at a time). */
function bridgeProcess(options: BfclBridgeOptions): JsonLinesProcess {
  const python = options.python ?? BFCL_VENV_PYTHON;
  return new JsonLinesProcess({
    name: "the BFCL bridge",
    command: python,
    args: ["-I", "-W", "ignore", BFCL_BRIDGE],
    missingMessage: `BFCL's Python (${python}) is missing; run ./scripts/setup.sh (without ENVFORGE_SKIP_BFCL=1)`,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
  });
}

/** A bridge failure as a {@link SuiteError}: `suite_unavailable` when it cannot start, else `suite_protocol` (BFCL's own refusal names its code). */
function suiteError(error: unknown): Error {
  if (!(error instanceof JsonLinesError)) return error as Error;
  const failure = error.failure;
  if (failure.kind === "unavailable") return new SuiteError("suite_unavailable", failure.message, { cause: error });
  return new SuiteError("suite_protocol", failure.kind === "answered" ? `the BFCL bridge refused: ${failure.code}: ${failure.message}` : failure.message, { retryable: failure.kind === "protocol", cause: error });
}

/** What the bridge lists for one entry. */
interface ListedEntry {
  readonly id: string;
  readonly category: string;
  readonly turns: number;
  readonly tools: readonly unknown[];
}

/**
 * The BFCL v4 multi-turn entries of `categories`, the first `limit` of each (after `offset`), as
 * packages: a multi-turn manifest whose tools are the entry's functions at turn 0 (OpenAI-style, JSON
 * Schema parameters, as the bridge converts BFCL's docs), a step cap of the step limit plus one per user
 * turn ({@link BfclBridgeOptions.stepLimit}), reward 1 for an entry BFCL's checker passes (its pass threshold), no hint.
 *
 * @throws SuiteError `suite_unavailable` when .venv-bfcl is missing; `suite_protocol` for an unknown category or a bridge failure
 */
export async function bfclPackages(categories: readonly string[], limit: number, offset = 0, options: BfclBridgeOptions = {}): Promise<EnvPackage[]> {
  const bridge = bridgeProcess(options);
  try {
    const answer = await bridge.request({ op: "list", categories: [...categories], limit, offset });
    const entries = answer.entries;
    if (!Array.isArray(entries)) throw new SuiteError("suite_protocol", "the BFCL bridge answered list without entries");
    return (entries as ListedEntry[]).map((entry) => bfclPackage(entry, options.stepLimit ?? BFCL_STEP_LIMIT));
  } catch (error) {
    throw suiteError(error);
  } finally {
    await bridge.close();
  }
}

/** One listed entry as an {@link EnvPackage} (see {@link bfclPackages}). */
function bfclPackage(entry: ListedEntry, stepLimit: number): EnvPackage {
  const tools: ToolDefinition[] = entry.tools.map((tool) => ToolDefinitionSchema.parse(tool));
  const name = `bfcl-${entry.id}`.toLowerCase().replace(/[^a-z0-9-]+/g, "-").slice(0, 64);
  return {
    manifest: {
      schemaVersion: 1,
      name,
      title: `BFCL v4 ${entry.id}`,
      description: `BFCL v4 multi-turn entry ${entry.id} (${entry.category}): ${entry.turns} user turns over ${tools.length} functions, scored by BFCL's multi_turn_checker.`,
      interaction: "multi-turn",
      maxTurns: entry.turns * (stepLimit + 1),
      rewardRange: [0, 1],
      passThreshold: 1,
      hint: BFCL_NO_HINT,
      skills: ["tool use", "bfcl"],
      scenario: entry.category,
      difficulty: {},
      tools,
      provenance: { origin: "seed", parentId: null, generation: 0, designerModel: null, promptHash: null, corpusDocumentIds: [], createdAt: new Date(0).toISOString() },
    },
    envSource: "",
    oracleSource: "",
    bfcl: { id: entry.id, category: entry.category, turns: entry.turns },
  };
}

/**
 * One BFCL entry's episode, played through its own bridge process: `reset` loads the entry (the seed
 * is ignored: an entry is one fixed task) with the step limit, a tool call runs on BFCL's executor and answers its result,
 * a text action ends the user turn (the next turn's message, or after the last turn BFCL's checker:
 * reward 1 or 0, terminated). BFCL has no oracle here: `oracleAction` is `forbidden`.
 */
export class BfclSession implements EnvSession {
  private readonly bridge: JsonLinesProcess;
  private readonly stepLimit: number;

  constructor(
    private readonly entry: BfclEntry,
    options: BfclBridgeOptions = {},
  ) {
    this.bridge = bridgeProcess(options);
    this.stepLimit = options.stepLimit ?? BFCL_STEP_LIMIT;
  }

  async reset(): Promise<SandboxOutcome<string>> {
    const answer = await this.ask({ op: "reset", entry: this.entry.id, step_limit: this.stepLimit });
    if (answer.kind !== "ok") return answer;
    return { kind: "ok", value: String(answer.value.observation ?? "") };
  }

  async step(action: EnvAction): Promise<SandboxOutcome<StepResult>> {
    const answer = await this.ask({ op: "step", action });
    if (answer.kind !== "ok") return answer;
    const value = answer.value;
    return {
      kind: "ok",
      value: {
        observation: capObservation(String(value.observation ?? "")),
        reward: typeof value.reward === "number" ? value.reward : 0,
        terminated: value.terminated === true,
        truncated: value.truncated === true,
        info: typeof value.info === "object" && value.info !== null ? (value.info as Record<string, unknown>) : {},
      },
    };
  }

  async oracleAction(): Promise<SandboxOutcome<EnvAction>> {
    return { kind: "forbidden", message: "BFCL entries have no oracle in envforge" };
  }

  close(): Promise<void> {
    return this.bridge.close();
  }

  /** One request; a bridge failure is the episode's `crashed` outcome (the bridge refused or died). */
  private async ask(body: Record<string, unknown>): Promise<SandboxOutcome<Record<string, unknown>>> {
    try {
      return { kind: "ok", value: await this.bridge.request(body) };
    } catch (error) {
      return { kind: "crash", message: suiteError(error).message };
    }
  }
}

function capObservation(observation: string): string {
  const cap = BFCL_MAX_OBSERVATION_CHARS;
  return observation.length <= cap ? observation : `${observation.slice(0, cap)}\n[observation truncated at ${cap} characters]`;
}

/**
 * `sandbox` with BFCL entries ({@link EnvProgram.bfclEpisode}) played by {@link BfclSession}s; every
 * other program goes to `sandbox`.
 */
export function withBfclRuntime(sandbox: Sandbox, options: BfclBridgeOptions = {}): Sandbox {
  return {
    name: sandbox.name,
    async open(program: EnvProgram): Promise<SandboxOutcome<EnvSession>> {
      const episode = program.bfclEpisode;
      if (episode === undefined) return sandbox.open(program);
      return { kind: "ok", value: new BfclSession(episode.entry, options) };
    },
    close: () => sandbox.close(),
  };
}
