import type { Config } from "../../config/index.js";
import type { CorpusDocument, Datum, DesignRecord, Episode, EpisodeRecord, LanguageModel, RoundReport, Sandbox, SandboxOutcome, Store, Trainer } from "../../spec/index.js";
import { lossConfig } from "../advantages/index.js";
import type { AdmissionGate, AdmissionResources } from "../admission/index.js";
import { formatWindow, frontierPool, storedLevelWindows, updateWindow } from "../curriculum/index.js";
import { EMPTY_LEARNING_POTENTIAL, type LearningPotentialState } from "../rewards/index.js";
import { episodesOf, playEpisodeJobs, seededRandom } from "../rollout/index.js";
import { hintPlayJobs, splitHintPlays } from "./calibrate.js";
import { planStep, type PendingDesignerDatums } from "./coevolution.js";
import { solverProbe } from "./solver-rollouts.js";
import { ensureProbeBaseline, measureProbe } from "./logprob-probe.js";
import { runDesignStep } from "./design-step.js";
import type { ProgressListener } from "./progress.js";
import { buildRoundReport, levelReports } from "./round-report.js";
import { deriveSeed, sampleWithoutReplacement } from "./sampling.js";
import { runTrainingStep } from "./training-step.js";
import { readHoldout, withoutHoldout } from "../holdout/index.js";

/** Store metadata key of the learning-potential averages (reward mode `learning-potential`). */
export const LEARNING_POTENTIAL_META = "learningPotential";
/** Store metadata key of the Designer datums waiting for their delayed update. */
export const PENDING_DESIGNER_META = "pendingDesignerDatums";
/** Store metadata key prefix of a round's training step: `{ before }`, the policy version before it. */
export const TRAINING_STEP_META = "trainingStep/";
/**
 * Store metadata key prefix of a round's stored work time: `{ solver, designer }`, wall-clock
 * seconds up to the last stored step (the Solver phase, each design), over every attempt of the
 * round; a resumed round reports what its earlier attempts took beside its own seconds.
 */
export const ROUND_SECONDS_META = "roundSeconds/";

interface StoredSeconds {
  readonly solver: number;
  readonly designer: number;
}

/** Names of the environments `designs` admitted, in design order. */
function admittedNamesOf(designs: readonly DesignRecord[], store: Store): string[] {
  const ids = new Set(designs.flatMap((design) => (design.environmentId === null ? [] : [design.environmentId])));
  if (ids.size === 0) return [];
  const names = new Map(store.listEnvironments().filter((record) => ids.has(record.id)).map((record) => [record.id, record.package.manifest.name]));
  return designs.flatMap((design) => (design.environmentId === null ? [] : [names.get(design.environmentId) ?? design.environmentId]));
}

/** Everything a round works with; time is injected for exact tests. */
export interface RoundDependencies {
  readonly config: Config;
  readonly model: LanguageModel;
  readonly sandbox: Sandbox;
  readonly store: Store;
  readonly trainer: Trainer;
  readonly corpus: readonly CorpusDocument[];
  readonly gates: readonly AdmissionGate[];
  /** Run-long admission resources (source inspector, fingerprint cache, benchmark texts, rubric). */
  readonly admission: AdmissionResources;
  readonly progress: ProgressListener;
  /** Fixed datum whose learner logprobs are measured before the first step and after each (none: no probe). */
  readonly probe?: Datum;
  /** The policy samples on an inference engine, not the trainer's sampler (see `runTrainingStep`). @default false */
  readonly engineSampled?: boolean;
  /** @default () => new Date() */
  readonly now?: () => Date;
}

/**
 * One self-play round (design map, data flow): (a) the Solver plays environments
 * sampled from memory with and without their hints; (b–g) the Designer proposes
 * environments that are parsed, admitted, calibrated and scored (on the
 * co-evolution schedule's generation steps); then the training step builds
 * datums from the recorded tokens and updates the policy (`runTrainingStep`),
 * and the logprob probe is measured. Episodes and designs carry the policy
 * version they were sampled with (the trainer's). Every step is stored as soon
 * as it finishes; a resumed round skips stored work, does not re-apply a training
 * step its restored checkpoint holds, and the report is computed from the store.
 *
 * @throws StoreError when the store cannot be written (the run must stop)
 */
export async function runRound(round: number, deps: RoundDependencies): Promise<RoundReport> {
  const { config, store, progress } = deps;
  const now = deps.now ?? (() => new Date());
  const started = now().getTime();
  const record = store.beginRound(round);
  // the version the policy samples with this round (the trainer's current one)
  const policyVersion = deps.trainer.policyVersion;

  const seconds = (from: number) => Math.round((now().getTime() - from) / 100) / 10;
  const secondsKey = `${ROUND_SECONDS_META}${round}`;
  // the stored work of this round's earlier attempts (none on a round's first attempt)
  const earlier = (store.getMeta(secondsKey) as StoredSeconds | undefined) ?? { solver: 0, designer: 0 };
  let stored: StoredSeconds = earlier;
  if (!record.solverPhaseDone) {
    const random = seededRandom(deriveSeed(config.seed, round, "solver"));
    const pool =
      config.solver.sampling === "frontier"
        ? await frontierPool({
            store,
            round,
            settings: config.evolution.frontier,
            probe: solverProbe(store, deps.model, deps.sandbox, { ...config.solver, rollouts: config.evolution.frontier.rollouts }, `${config.seed}/frontier/${round}`),
          })
        : store.listEnvironments();
    // environments of the holdout split (envforge eval) are never sampled for training
    const chosen = sampleWithoutReplacement(withoutHoldout(pool, readHoldout(store)), config.solver.environments, random);
    progress.phaseStarted?.(round, "solver", chosen.length);
    // every episode of the phase is one job, played solver.concurrency at a time; results come back in job order
    const settings = { plays: config.plays, ...config.solver };
    // each levelled environment's window from the controller (RLVE), replayed from the stored rounds
    const windows = storedLevelWindows(store, chosen, round, config.levels);
    const jobsOf = chosen.map((environment) =>
      hintPlayJobs(environment.package, deps.model, settings, `${config.seed}/${round}/solver/${environment.id}`, windows.get(environment.id)),
    );
    const jobs = jobsOf.flat();
    const environmentOf = jobsOf.flatMap((group, index) => group.map(() => index));
    const left = jobsOf.map((group) => group.length);
    const wins = jobsOf.map(() => 0);
    const onEpisode = (job: number, outcome: SandboxOutcome<Episode>) => {
      const index = environmentOf[job] as number;
      if (outcome.kind === "ok" && outcome.value.won) wins[index] = (wins[index] ?? 0) + 1;
      left[index] = (left[index] ?? 1) - 1;
      const environment = chosen[index];
      const window = environment === undefined || environment.package.manifest.levels === undefined ? undefined : windows.get(environment.id);
      const levels = window === undefined ? "" : ` at levels ${formatWindow(window)} of ${window.count}`;
      if (left[index] === 0 && environment !== undefined) progress.unitDone?.(round, "solver", `${environment.package.manifest.name}: ${wins[index]}/${config.plays * 2} won${levels}`);
    };
    const played = episodesOf(jobs, await playEpisodeJobs(deps.sandbox, jobs, { concurrency: config.solver.concurrency, onEpisode }));
    const episodes: EpisodeRecord[] = [];
    let offset = 0;
    chosen.forEach((environment, index) => {
      const count = jobsOf[index]?.length ?? 0;
      const plays = splitHintPlays(played.slice(offset, offset + count));
      offset += count;
      for (const [hint, group] of [[false, plays.withoutHint], [true, plays.withHint]] as const) {
        for (const episode of group) episodes.push({ round, environmentId: environment.id, role: "solver", hint, policyVersion, episode });
      }
    });
    store.saveSolverPhase(round, episodes);
    stored = { ...stored, solver: earlier.solver + seconds(started) };
    store.setMeta(secondsKey, stored);
    for (const environment of chosen) {
      const window = windows.get(environment.id);
      if (window === undefined || environment.package.manifest.levels === undefined) continue;
      const next = updateWindow(window, round, episodes, config.levels);
      if (next.high !== window.high) progress.notice?.(`round ${round}: ${environment.package.manifest.name} level window ${formatWindow(window)} -> ${formatWindow(next)}`);
    }
  } else {
    progress.notice?.(`round ${round}: solver phase already stored, skipping it`);
  }

  const solverSeconds = seconds(started);
  const designerStarted = now().getTime();
  const done = new Set(store.listDesigns(round).map((design) => design.index));
  let learningPotential = (store.getMeta(LEARNING_POTENTIAL_META) as LearningPotentialState | undefined) ?? EMPTY_LEARNING_POTENTIAL;
  // co-evolution: the Designer generates on steps 1, 1 + k, 1 + 2k, … (config.schedule.designerEvery)
  const designsThisStep = planStep(round, config.schedule).designerGenerates ? config.designer.designs : 0;
  progress.phaseStarted?.(round, "designer", designsThisStep);
  for (let index = 0; index < designsThisStep; index += 1) {
    if (done.has(index)) {
      progress.unitDone?.(round, "designer", `design ${index}: already stored`);
      continue;
    }
    const result = await runDesignStep({
      round,
      index,
      config,
      model: deps.model,
      sandbox: deps.sandbox,
      corpus: deps.corpus,
      memory: store.listEnvironments(),
      heldOut: readHoldout(store)?.ids ?? [],
      gates: deps.gates,
      admission: deps.admission,
      policyVersion,
      learningPotential,
      now,
      onRepair: ({ turn, verdict, seconds, truncated }) =>
        progress.unitProgress?.(
          round,
          "designer",
          `design ${index} attempt ${turn + 1}: rejected${verdict?.status === "reject" ? ` by ${verdict.gate}: ${verdict.reason}` : ""}${truncated ? " (cut at designer.maxTokens)" : ""} after ${seconds.toFixed(0)} s; repair turn ${turn + 1} of ${config.designer.repairTurns}`,
        ),
    });
    store.saveDesign(result.design, result.admitted);
    stored = { ...stored, designer: earlier.designer + seconds(designerStarted) };
    store.setMeta(secondsKey, stored);
    learningPotential = result.learningPotential;
    store.setMeta(LEARNING_POTENTIAL_META, learningPotential);
    const last = result.design.verdicts.at(-1);
    // the last attempt gets no repair-turn line of its own, so this line names its gate and its number
    const attempts = (result.design.repairs?.length ?? 0) + 1;
    const outcome = result.admitted
      ? `admitted ${result.admitted.environment.package.manifest.name} (reward ${result.design.reward.toFixed(2)})`
      : `rejected${last?.status === "reject" ? ` by ${last.gate}: ${last.reason}` : ": unknown"}${attempts > 1 ? ` (attempt ${attempts})` : ""}`;
    progress.unitDone?.(round, "designer", `design ${index}: ${outcome}`);
  }

  const designerSeconds = seconds(designerStarted);
  const trainingStarted = now().getTime();
  const designs = store.listDesigns(round);
  const episodes = store.listEpisodes(round);
  const loss = lossConfig(config.advantages);
  if (deps.probe !== undefined) await ensureProbeBaseline(deps.trainer, deps.probe, loss, store);
  // a run killed after this step's update was checkpointed must not apply it twice
  const stepKey = `${TRAINING_STEP_META}${round}`;
  const marker = store.getMeta(stepKey) as { before: number } | undefined;
  if (marker === undefined) store.setMeta(stepKey, { before: deps.trainer.policyVersion });
  const apply = marker === undefined || deps.trainer.policyVersion <= marker.before;
  if (!apply) progress.notice?.(`round ${round}: the training step is already in the restored checkpoint (policy version ${deps.trainer.policyVersion}), not applying it again`);
  progress.phaseStarted?.(round, "training", 1);
  const training = await runTrainingStep({
    step: round,
    episodes,
    designs,
    memory: store.listEnvironments(),
    config,
    trainer: deps.trainer,
    pendingDesigner: (store.getMeta(PENDING_DESIGNER_META) as PendingDesignerDatums | undefined) ?? {},
    apply,
    engineSampled: deps.engineSampled ?? false,
  });
  store.setMeta(PENDING_DESIGNER_META, training.pendingDesigner);
  const probe = deps.probe === undefined ? null : await measureProbe(deps.trainer, deps.probe, loss, store);
  progress.unitDone?.(
    round,
    "training",
    `policy version ${training.policyVersion}, ${training.datums} datums` + (probe === null ? "" : `, probe Δlogprob/token ${probe.deltaFromStart.toFixed(4)}`),
  );
  const report = buildRoundReport(round, designs, episodes, {
    trainer: {
      name: deps.trainer.name,
      policyVersion: training.policyVersion,
      datums: training.datums,
      ...(probe === null ? {} : { probe }),
      ...(training.samplerMismatch === null ? {} : { samplerMismatch: training.samplerMismatch }),
    },
    diagnostics: training.diagnostics,
    seconds: seconds(started),
    ...(earlier.solver + earlier.designer > 0 ? { earlierSeconds: Math.round((earlier.solver + earlier.designer) * 10) / 10 } : {}),
    phaseSeconds: { solver: solverSeconds, designer: designerSeconds, training: seconds(trainingStarted) },
    admittedNames: admittedNamesOf(designs, store),
    levels: levelReportsOf(store, round, episodes, config.levels),
  });
  store.finishRound(round, report);
  return report;
}

/**
 * The round's level reports: the windows before the round, replayed once from the store, and after
 * it, that replay advanced by this round's episodes (the same step the next round's replay takes).
 */
function levelReportsOf(store: Store, round: number, episodes: readonly EpisodeRecord[], settings: Config["levels"]) {
  const environments = store.listEnvironments();
  const before = storedLevelWindows(store, environments, round, settings);
  const after = new Map([...before].map(([id, window]) => [id, updateWindow(window, round, episodes, settings)]));
  return levelReports(environments, episodes, before, after);
}
