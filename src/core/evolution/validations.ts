import type { EditPlan, EnvPackage, Episode, LanguageModel, Verdict, VerdictGate } from "../../spec/index.js";
import { pass, reject } from "../../spec/index.js";
import { checkGate, createGate, playOracle, playSeeds, scriptedPolicy, seedRange, withSession, type AdmissionContext } from "../admission/index.js";
import { doNothingPolicy } from "../rollout/index.js";
import { formatSequence } from "./planning-loop.js";
import { review, type RoleSettings } from "./reviewer.js";

/** What the validations of a child need. */
export interface ValidationContext {
  /**
   * The context the admission gates `oracle` and `negative-controls` check the
   * child under: the sandbox, the inspector and the admission settings with
   * `seeds` = the number of validation seeds (config `evolution.validationSeeds`).
   */
  readonly admission: AdmissionContext;
  readonly model: LanguageModel;
  /** Child rubrics (the `## Child` section of the rubric file). */
  readonly rubrics: readonly string[];
  readonly reviewer: RoleSettings;
  /** Constrain the rubric review with its grammar (config `evolution.grammar`). @default false */
  readonly grammar?: boolean;
}

/** Characters of each source file shown to the rubric reviewer. */
export const REVIEW_SOURCE_CHARS = 4000;

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

/** Turns each probe agent of {@link behaviourChangeValidation} plays at most. */
export const BEHAVIOUR_PROBE_TURNS = 4;

/** What an agent sees of an episode: the first observation, then each action, observation and reward, and how it ended. */
function seen(episode: Episode): string {
  return JSON.stringify([episode.initialObservation, episode.turns.map((turn) => [turn.action, turn.observation, turn.reward]), episode.return, episode.terminated, episode.failure?.kind ?? null]);
}

/**
 * The transcripts of the oracle, a do-nothing agent and a fixed probe agent on
 * `seeds`, or null when the package does not load. The oracle's episodes come
 * from {@link playOracle}, shared with the oracle gate and cached per context,
 * so neither the child's (checked in parallel by that gate) nor the parent's
 * (the same in every round of an attempt) are played twice.
 */
async function transcripts(pkg: EnvPackage, admission: AdmissionContext, seeds: readonly number[]): Promise<string[] | null> {
  const oracle = await playOracle(pkg, admission);
  if (oracle.kind !== "ok") return null;
  const probes = await withSession(admission.sandbox, pkg, false, async (session) => [
    ...(await playSeeds(session, pkg, seeds, () => doNothingPolicy, BEHAVIOUR_PROBE_TURNS)),
    ...(await playSeeds(session, pkg, seeds, () => scriptedPolicy("probe", ["1", "test", "a 2"]), BEHAVIOUR_PROBE_TURNS)),
  ]);
  return probes.kind === "ok" ? [...oracle.value, ...probes.value].map(seen) : null;
}

/**
 * Behaviour-change validation (gate `behaviour-change`): the child must
 * differ from its parent in what an agent sees. The oracle, a do-nothing agent
 * and a fixed probe agent play both on the validation seeds; when every
 * transcript (observations, the oracle's actions, rewards, endings) is
 * identical, the child only renamed or added code no episode reaches, and
 * is rejected with reason `child_behaviour_unchanged`. (Qwen2.5-Coder-1.5B's
 * second Modifier replies added unused attributes to `__init__`; the oracle,
 * negative-controls and rubric validations passed such a child, and the
 * novelty gate leaves the parent out of its pool.) A child that does not load
 * passes here: the oracle validation reports that.
 */
export async function behaviourChangeValidation(child: EnvPackage, parent: EnvPackage, admission: AdmissionContext): Promise<Verdict> {
  const seeds = seedRange(admission.settings.seeds);
  const [before, after] = await Promise.all([transcripts(parent, admission, seeds), transcripts(child, admission, seeds)]);
  if (before === null || after === null) return pass("behaviour-change", { compared: false });
  const changed = after.filter((transcript, index) => transcript !== before[index]).length;
  if (changed === 0) {
    return reject("behaviour-change", "child_behaviour_unchanged", `the child behaves exactly like its parent on ${seeds.length} seeds (the same observations, oracle answers and rewards): change what the agent sees or must do, as the plan says`);
  }
  return pass("behaviour-change", { changedEpisodes: changed, episodes: after.length });
}

/**
 * The validations of the modification loop (environment evolution: oracle,
 * invalid-test and rubric, plus a behaviour change). The three mechanical
 * ones run first, in parallel; they are admission gates, not a second
 * implementation: `oracle` (the oracle reaches the pass threshold on every
 * validation seed, every step reward in range) and `negative-controls` (the
 * invalid test: a do-nothing, a random and an invalid-action agent all lose,
 * and, with at least five seeds, no fixed reply wins), then
 * {@link behaviourChangeValidation} against the parent. Only when all three
 * pass does the rubric reviewer (a model call) check the child against the
 * plan and the child rubrics. Returns the three mechanical verdicts, plus
 * the rubric's when it ran; never throws (a check that throws becomes a
 * `validation_error` reject).
 */
export async function validateChild(child: EnvPackage, parent: EnvPackage, plan: EditPlan, context: ValidationContext): Promise<Verdict[]> {
  const guard = (gate: VerdictGate, run: () => Promise<Verdict>) =>
    run().catch((error: unknown) => reject(gate, "validation_error", (error as Error).message));
  const mechanical = await Promise.all([
    guard("oracle", () => checkGate(createGate("oracle"), child, context.admission)),
    guard("negative-controls", () => checkGate(createGate("negative-controls"), child, context.admission)),
    guard("behaviour-change", () => behaviourChangeValidation(child, parent, context.admission)),
  ]);
  if (mechanical.some((verdict) => verdict.status === "reject")) return mechanical;
  return [...mechanical, await guard("rubric", () => review(context.model, "child", context.rubrics, childReviewSubject(child, plan), context.reviewer, { grammar: context.grammar === true }))];
}
