import { appendFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Config } from "../../config/index.js";
import { ConfigError, packageId, RUN_STORE_FILE, StoreError, type CorpusDocument, type Datum, type EnvPackage, type LanguageModel, type RoundReport, type Sandbox, type Store, type Trainer } from "../../spec/index.js";
import { makeDirectory } from "../../support/make-directory.js";
import type { AdmissionGate, AdmissionResources } from "../admission/index.js";
import type { ProgressListener } from "./progress.js";
import { runRound } from "./round.js";
import { ensureHoldout } from "../holdout/index.js";

/** Names of the files a run writes into its directory. */
export const RUN_FILES = { store: RUN_STORE_FILE, report: "report.json", metrics: "metrics.jsonl" } as const;

/** What {@link runSelfPlay} works with. Adapters are created by the caller (the CLI or a program). */
export interface SelfPlayRun {
  readonly config: Config;
  /** The run directory (`config.out` resolved by the caller). */
  readonly outDir: string;
  /** Continue the run stored in `outDir` instead of refusing to touch it. */
  readonly resume: boolean;
  readonly store: Store;
  readonly model: LanguageModel;
  readonly sandbox: Sandbox;
  readonly trainer: Trainer;
  readonly corpus: readonly CorpusDocument[];
  /** Environments memory starts with (the seeds). */
  readonly seeds: readonly EnvPackage[];
  readonly gates: readonly AdmissionGate[];
  /** Run-long admission resources (source inspector, fingerprint cache, benchmark texts, rubric). */
  readonly admission: AdmissionResources;
  readonly progress?: ProgressListener;
  /** Logprob probe datum measured before the first step and after each (from `openTrainer`); none: no probe. */
  readonly probe?: Datum;
  /** The policy samples on an inference engine (`OpenedTrainer.engineSampled`): datums are corrected against the trainer. @default false */
  readonly engineSampled?: boolean;
  /** @default () => new Date() */
  readonly now?: () => Date;
  /**
   * Called after each round's line is appended to `metrics.jsonl` and `report.json` is rewritten
   * (the CLI's live TensorBoard export, `metrics.tensorboard`). It must not throw: a failure of
   * what it does is its own to report. @default none
   */
  readonly afterRound?: (round: number) => Promise<void>;
}

/** Outcome of a run. */
export interface SelfPlayResult {
  /** One report per round, in order (including rounds finished before a resume). */
  readonly reports: readonly RoundReport[];
  /** Path of `report.json`. */
  readonly reportPath: string;
  /** Environments in memory at the end. */
  readonly environments: number;
}

/**
 * Runs `config.rounds` self-play rounds against the run directory `outDir`.
 * A new run stores its config and puts the seed environments in memory; a
 * resumed run (`resume: true`) skips finished rounds and finished steps of the
 * interrupted one. After every round `report.json` is rewritten atomically and
 * a `{"kind":"round", …}` line (ISO-8601 `time`, trainer name, policy version, datums, logprob probe,
 * seconds per phase, per-role training diagnostics) is appended to `metrics.jsonl`
 * (the trainer appends its own `trainer_step` line per optimiser step).
 *
 * @throws ConfigError when the directory already holds a run and `resume` is false
 * @throws StoreError when the store cannot be written
 */
export async function runSelfPlay(run: SelfPlayRun): Promise<SelfPlayResult> {
  const { config, store } = run;
  const progress = run.progress ?? {};
  const stored = store.getMeta("config");
  if (stored !== undefined && !run.resume) {
    throw new ConfigError(`${run.outDir} already holds a run; pass --resume to continue it or choose another --out`);
  }
  if (stored === undefined) {
    // claimed atomically: of two orchestrators starting one run at the same moment (one shared store), one runs it
    if (!store.claimMeta("config", config)) throw new ConfigError(`${run.outDir}: another orchestrator started this run just now; pass --resume to continue it or choose another --out`);
    store.setMeta("model", run.model.id);
  } else {
    const finished = store.listRounds().filter((round) => round.status === "done").length;
    progress.notice?.(`resuming ${run.outDir}: ${finished} round(s) finished, ${store.listEnvironments().length} environments in memory`);
  }
  for (const pkg of run.seeds) store.addEnvironment({ id: packageId(pkg), package: pkg, round: null, scores: null });
  // the holdout split (envforge eval --suite holdout) made before any round, so training never samples it
  if (config.eval.holdoutAtStart) ensureHoldout(store, config.eval.holdoutFraction, config.eval.seed);

  makeDirectory(run.outDir);
  const reportPath = join(run.outDir, RUN_FILES.report);
  for (let round = 1; round <= config.rounds; round += 1) {
    const existing = store.listRounds().find((record) => record.round === round);
    if (existing?.status === "done") continue;
    const report = await runRound(round, {
      config,
      model: run.model,
      sandbox: run.sandbox,
      store,
      trainer: run.trainer,
      corpus: run.corpus,
      gates: run.gates,
      admission: run.admission,
      progress,
      ...(run.probe ? { probe: run.probe } : {}),
      ...(run.engineSampled ? { engineSampled: true } : {}),
      ...(run.now ? { now: run.now } : {}),
    });
    const time = (run.now ?? (() => new Date()))().toISOString();
    const line = { kind: "round", round, time, trainer: report.trainer, seconds: report.seconds, ...(report.earlierSeconds === undefined ? {} : { earlierSeconds: report.earlierSeconds }), phaseSeconds: report.phaseSeconds, diagnostics: report.diagnostics };
    const metricsPath = join(run.outDir, RUN_FILES.metrics);
    runFile(metricsPath, () => appendFileSync(metricsPath, `${JSON.stringify(line)}\n`));
    writeReport(reportPath, store);
    await run.afterRound?.(round);
  }
  writeReport(reportPath, store);
  return {
    reports: storedRoundReports(store),
    reportPath,
    environments: store.listEnvironments().length,
  };
}

/** The round reports a run's store holds, in round order (rounds without a report are left out). */
export function storedRoundReports(store: Store): RoundReport[] {
  return store.listRounds().flatMap((round) => (round.report === null ? [] : [round.report]));
}

function writeReport(path: string, store: Store): void {
  const temporary = `${path}.tmp-${process.pid}`;
  runFile(path, () => {
    try {
      writeFileSync(temporary, `${JSON.stringify(storedRoundReports(store), null, 2)}\n`);
      renameSync(temporary, path);
    } finally {
      rmSync(temporary, { force: true });
    }
  });
}

/** Writes one of the run's files; an I/O failure (a full disk, a folder in the file's place) is a StoreError naming the file. */
function runFile(path: string, write: () => void): void {
  try {
    write();
  } catch (error) {
    throw new StoreError(`cannot write ${path}: ${(error as Error).message}`, { cause: error });
  }
}
