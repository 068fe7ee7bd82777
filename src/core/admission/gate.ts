import type { AdmissionGateName, Config } from "../../config/index.js";
import type { CorpusDocument, EnvPackage, LanguageModel, Sandbox, Verdict } from "../../spec/index.js";
import type { Policy } from "../rollout/index.js";
import type { BehaviourFingerprint } from "./behaviour-fingerprint.js";
import type { SourceInspector } from "./source-inspector.js";

/** The `admission` config block: gate selection and every threshold (see `ConfigSchema`). */
export type AdmissionSettings = Config["admission"];

/**
 * The Solver as the calibration gate sees it: a fresh policy per play
 * (`play` numbers plays from 0, so sampling seeds differ) and the turn cap.
 */
export interface CalibrationSolver {
  /** A Solver policy without the hint for play number `play`. */
  policy(play: number): Policy;
  /** Cap on turns per calibration episode, on top of the environment's maxTurns. */
  readonly maxTurns: number;
  /** Calibration episodes in flight at once (`solver.concurrency`). @default 1 */
  readonly concurrency?: number;
}

/**
 * What every admission gate may use. Mechanical gates need the sandbox and the
 * settings; `inspector` serves the static gate; `pool`, `fingerprints` and
 * `benchmarkTexts` serve novelty and decontamination; `model`, `rubric` and
 * `solver` serve the model-based gates (self-review, calibration), which
 * reject with reason `model_missing` when they are absent.
 */
export interface AdmissionContext {
  readonly sandbox: Sandbox;
  readonly settings: AdmissionSettings;
  /** Parses Python sources without running them (static gate). */
  readonly inspector: SourceInspector;
  /** Environments a candidate must differ from (seeds and memory). A pool entry with the candidate's own package id is skipped. @default [] */
  readonly pool?: readonly EnvPackage[];
  /** Behaviour fingerprints by package id, filled lazily; share one map across candidates. */
  readonly fingerprints?: Map<string, Promise<BehaviourFingerprint>>;
  /** Benchmark texts the environment must not overlap (decontamination). @default [] */
  readonly benchmarkTexts?: readonly CorpusDocument[];
  /** The language model of the self-review gate. */
  readonly model?: LanguageModel;
  /** Self-review rubric text (Markdown). */
  readonly rubric?: string;
  /** The Solver of the calibration gate. */
  readonly solver?: CalibrationSolver;
}

/**
 * One admission check with one job. Gates never throw for a bad candidate:
 * they return a reject {@link Verdict} with a stable reason code, a message and
 * evidence.
 */
export interface AdmissionGate {
  /** Gate name, e.g. `oracle`; the `gate` field of its verdicts. */
  readonly name: AdmissionGateName;
  /** Whether the gate calls the language model (self-review, calibration). */
  readonly usesModel: boolean;
  /**
   * Whether the gate checks each declared level of a levelled family on its own (the
   * mechanical checks of one instance: executable, deterministic, oracle, negative controls,
   * scorer contract, hint); see `checkGate`. @default false (the family is judged once)
   */
  readonly perLevel?: boolean;
  check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict>;
}

/**
 * The parts of an {@link AdmissionContext} that live as long as a run (the
 * caller builds them once from the config): the inspector, the fingerprint
 * cache, the benchmark texts and the rubric. The self-play round adds the
 * sandbox, settings, pool (memory), model and Solver per design.
 */
export type AdmissionResources = Pick<AdmissionContext, "inspector" | "fingerprints" | "benchmarkTexts" | "rubric">;
