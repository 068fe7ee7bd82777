import { pass, reject, type EditPlan, type EnvPackage, type EnvSession, type Episode, type LanguageModel, type Sandbox, type Verdict } from "../../spec/index.js";
import { doNothingPolicy, oraclePolicy, playEpisode, type Policy } from "../rollout/index.js";
import { formatSequence } from "./planning-loop.js";
import { review, type RoleSettings } from "./reviewer.js";

/** What the three validations of a child need. */
export interface ValidationContext {
  readonly sandbox: Sandbox;
  /** Episode seeds the oracle and invalid-test validations play. */
  readonly seeds: readonly number[];
  readonly model: LanguageModel;
  /** Child rubrics (the `## Child` section of the rubric file). */
  readonly rubrics: readonly string[];
  readonly reviewer: RoleSettings;
}

/** Characters of each source file shown to the rubric reviewer. */
export const REVIEW_SOURCE_CHARS = 4000;

async function playSeeds(pkg: EnvPackage, sandbox: Sandbox, seeds: readonly number[], makePolicy: (session: EnvSession) => Policy): Promise<Episode[] | string> {
  const opened = await sandbox.open({ envSource: pkg.envSource, oracleSource: pkg.oracleSource });
  if (opened.kind !== "ok") return `${opened.kind}: ${opened.message}`;
  try {
    const episodes: Episode[] = [];
    for (const seed of seeds) episodes.push(await playEpisode(opened.value, pkg.manifest, seed, makePolicy(opened.value)));
    return episodes;
  } finally {
    await opened.value.close();
  }
}

function summary(episodes: readonly Episode[]) {
  return episodes.map((episode) => ({ seed: episode.seed, return: episode.return, turns: episode.turns.length, failure: episode.failure?.message }));
}

/**
 * Oracle validation: the child's reference solution reaches full reward (the
 * top of `rewardRange`) on every seed in the sandbox. Reason codes:
 * `load_failed`, `oracle_not_full_reward` (per-seed returns in the evidence).
 */
export async function oracleValidation(child: EnvPackage, sandbox: Sandbox, seeds: readonly number[]): Promise<Verdict> {
  const played = await playSeeds(child, sandbox, seeds, (session) => oraclePolicy(session));
  if (typeof played === "string") return reject("oracle", "load_failed", `the child did not load: ${played}`);
  const full = child.manifest.rewardRange[1];
  const short = played.filter((episode) => episode.failure !== undefined || episode.return < full - 1e-9);
  if (short.length > 0) {
    const first = short[0] as Episode;
    const why = first.failure === undefined ? `return ${first.return} < ${full}` : `${first.failure.kind}: ${first.failure.message.slice(0, 300)}`;
    return reject("oracle", "oracle_not_full_reward", `the oracle missed full reward on ${short.length} of ${played.length} seeds (seed ${first.seed}: ${why})`, { episodes: summary(played) });
  }
  return pass("oracle", { episodes: summary(played) });
}

/**
 * Invalid-test validation: the empty (do-nothing) solution must fail on every
 * seed; an environment it passes is broken. Reason codes: `load_failed`,
 * `empty_solution_passes`.
 */
export async function invalidTestValidation(child: EnvPackage, sandbox: Sandbox, seeds: readonly number[]): Promise<Verdict> {
  const played = await playSeeds(child, sandbox, seeds, () => doNothingPolicy);
  if (typeof played === "string") return reject("invalid-test", "load_failed", `the child did not load: ${played}`);
  const won = played.filter((episode) => episode.won);
  if (won.length > 0) {
    return reject("invalid-test", "empty_solution_passes", `the empty solution wins on ${won.length} of ${played.length} seeds`, { episodes: summary(played) });
  }
  return pass("invalid-test");
}

/** The text the rubric reviewer sees for a child: plan, manifest and both files (cut to {@link REVIEW_SOURCE_CHARS}). */
export function childReviewSubject(child: EnvPackage, plan: EditPlan): string {
  const cut = (source: string) => (source.length > REVIEW_SOURCE_CHARS ? `${source.slice(0, REVIEW_SOURCE_CHARS)}\n# … (cut)` : source);
  const { title, description, hint, skills, scenario, maxTurns } = child.manifest;
  return [
    `Plan: ${plan.summary}`,
    "Planned sequence:",
    formatSequence(plan.steps),
    "",
    `Child manifest: ${JSON.stringify({ title, description, hint, skills, scenario, maxTurns })}`,
    "env.py:",
    "```python",
    cut(child.envSource),
    "```",
    "oracle.py:",
    "```python",
    cut(child.oracleSource),
    "```",
  ].join("\n");
}

/**
 * The three validations of the modification loop, run in parallel: oracle
 * (full reward), invalid-test (empty solution fails) and rubric (the reviewer
 * checks the child against the plan and the child rubrics). Returns the three
 * verdicts in that order; never throws.
 */
export async function validateChild(child: EnvPackage, plan: EditPlan, context: ValidationContext): Promise<Verdict[]> {
  const guard = (gate: string, run: () => Promise<Verdict>) =>
    run().catch((error: unknown) => reject(gate, "validation_error", (error as Error).message));
  return Promise.all([
    guard("oracle", () => oracleValidation(child, context.sandbox, context.seeds)),
    guard("invalid-test", () => invalidTestValidation(child, context.sandbox, context.seeds)),
    guard("rubric", () => review(context.model, "child", context.rubrics, childReviewSubject(child, plan), context.reviewer)),
  ]);
}
