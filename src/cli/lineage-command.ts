import { ConfigError } from "../spec/index.js";
import { appendRubric, DEFAULT_RUBRICS_PATH, reviewedFailure, type RubricStage } from "../core/evolution/index.js";
import { openRunFolderStore } from "../adapters/store/index.js";
import { findLineage, formatLineage } from "./lineage-view.js";
import { evolutionDirectory } from "./run-folders.js";

/** `envforge lineage show ID`: prints the lineage tree. */
export function lineageShowCommand(id: string, flags: { from?: string }): number {
  const store = openRunFolderStore(evolutionDirectory(flags.from));
  try {
    process.stdout.write(`${formatLineage(store, findLineage(store, id))}\n`);
  } finally {
    store.close();
  }
  return 0;
}

/** Flags of `envforge rubric learn`. */
export interface RubricLearnFlags {
  readonly from?: string;
  readonly lineage: string;
  readonly generation?: number;
  readonly attempt?: number;
  readonly stage?: string;
  readonly text?: string;
  readonly rubrics?: string;
}

/**
 * `envforge rubric learn`: appends a rubric learned from a reviewed failure
 * of a lineage (the latest failed attempt with a reviewer rejection, or the
 * one `--generation` / `--attempt` name) to the rubric file. The rubric is
 * `--text`, or else the reviewer's feedback itself; a comment records where it
 * was learned.
 * @throws ConfigError when no such failure exists or the flags are invalid
 */
export function rubricLearnCommand(flags: RubricLearnFlags): number {
  if (flags.stage !== undefined && flags.stage !== "plan" && flags.stage !== "child") throw new ConfigError(`--stage must be "plan" or "child", not "${flags.stage}"`);
  const stage = flags.stage as RubricStage | undefined;
  const store = openRunFolderStore(evolutionDirectory(flags.from));
  let learned;
  try {
    const lineage = findLineage(store, flags.lineage);
    const attempts = store
      .listEvolutionAttempts(lineage.id)
      .filter((attempt) => attempt.outcome !== "validated")
      .filter((attempt) => flags.generation === undefined || attempt.generation === flags.generation)
      .filter((attempt) => flags.attempt === undefined || attempt.attempt + 1 === flags.attempt);
    learned = attempts
      .reverse()
      .map((attempt) => reviewedFailure(attempt, stage))
      .find((candidate) => candidate !== null);
    if (learned === undefined || learned === null) {
      throw new ConfigError(`no reviewed failure${stage === undefined ? "" : ` of stage ${stage}`} found in lineage ${lineage.id}; see envforge lineage show ${lineage.id}`);
    }
  } finally {
    store.close();
  }
  const rubric = flags.text ?? learned.feedback;
  const path = flags.rubrics ?? DEFAULT_RUBRICS_PATH;
  appendRubric(path, learned.stage, rubric, `learned from ${learned.source}`);
  process.stdout.write(`added to ${path} (${learned.stage}): ${rubric}\n`);
  return 0;
}
