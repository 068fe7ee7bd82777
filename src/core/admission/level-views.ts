import { levelCount, type EnvPackage, type Verdict } from "../../spec/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { FIND_ENVIRONMENT_CLASS } from "./reused-instance.js";

/** The line that separates the candidate's code from the appended level pin of a {@link levelView}. */
export const LEVEL_VIEW_MARKER = "# ---- envforge level view: every reset(seed) builds the instance at one level ----";

const views = new WeakMap<EnvPackage, Map<number, EnvPackage>>();

/**
 * Level `level` of a levelled family as a package of one level: its `env.py`
 * gets an appended pin (the module's environment class, found as the sandbox
 * finds it, gets a `reset(seed)` that calls the original `reset(seed, level)`)
 * and its manifest loses `levels`, so every gate that plays `reset(seed)`
 * checks that level unchanged. The same object is returned for the same
 * candidate and level, so per-candidate caches (the oracle's episodes) hold per
 * level. A family of one level is its own view at level 0.
 *
 * @throws RangeError when `level` is not one of the candidate's levels
 */
export function levelView(candidate: EnvPackage, level: number): EnvPackage {
  if (!Number.isInteger(level) || level < 0 || level >= levelCount(candidate.manifest)) {
    throw new RangeError(`level ${level} is not one of ${candidate.manifest.name}'s ${levelCount(candidate.manifest)} levels`);
  }
  if (candidate.manifest.levels === undefined) return candidate;
  let byLevel = views.get(candidate);
  if (byLevel === undefined) {
    byLevel = new Map();
    views.set(candidate, byLevel);
  }
  let view = byLevel.get(level);
  if (view === undefined) {
    const { levels: _levels, ...manifest } = candidate.manifest;
    view = { manifest, envSource: pinnedLevelSource(candidate.envSource, level), oracleSource: candidate.oracleSource };
    byLevel.set(level, view);
  }
  return view;
}

/** `envSource` with {@link LEVEL_VIEW_MARKER} and the pin of `reset` to `level` appended. */
export function pinnedLevelSource(envSource: string, level: number): string {
  return levelShimSource(envSource, LEVEL_VIEW_MARKER, "return _levelled_reset(self, seed, _level)", "seed", level);
}

/** The line that separates a raised family's parent code from the appended level shift ({@link raisedLevelSource}). */
export const RAISED_LEVEL_MARKER = "# ---- envforge raised level: reset(seed, level) builds the parent's level + offset ----";

/**
 * `envSource` with {@link RAISED_LEVEL_MARKER} and a shift of `reset` appended: the
 * module's environment class gets a `reset(seed, level=0)` that calls the original
 * `reset(seed, level + offset)`, so the family's level 0 is the parent's level `offset`
 * (environment evolution's "raise the level" generation).
 */
export function raisedLevelSource(envSource: string, offset: number): string {
  return levelShimSource(envSource, RAISED_LEVEL_MARKER, "return _levelled_reset(self, seed, level + _level)", "seed, level=0", offset);
}

/** The one shim both forms append: finds the environment class as the sandbox does and replaces its `reset`. */
function levelShimSource(envSource: string, marker: string, body: string, parameters: string, value: number): string {
  return `${envSource}

${marker}
def _envforge_pin_level(_level=${value}):
${FIND_ENVIRONMENT_CLASS}
    _levelled_reset = _environment.reset

    def reset(self, ${parameters}):
        ${body}

    _environment.reset = reset


_envforge_pin_level()
del _envforge_pin_level
`;
}

/**
 * Runs `gate` on `candidate`: once for a family of one level or a gate that
 * judges the family as a whole; for a per-level gate (`gate.perLevel`) on the
 * {@link levelView} of every declared level in turn, stopping at the first
 * reject, whose message then starts with `level k of n:` and whose evidence
 * carries `level: k` (the gate and reason stay the gate's own, so one verdict
 * list covers both). A pass over every level keeps level 0's evidence and adds
 * `levels: n`. The one place the per-level checks of admission and evolution run.
 */
export async function checkGate(gate: AdmissionGate, candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  if (gate.perLevel !== true || candidate.manifest.levels === undefined) return gate.check(candidate, context);
  const count = levelCount(candidate.manifest);
  let first: Verdict | null = null;
  for (let level = 0; level < count; level += 1) {
    const verdict = await gate.check(levelView(candidate, level), context);
    if (verdict.status === "reject") {
      return { ...verdict, message: `level ${level} of ${count}: ${verdict.message}`, evidence: { ...(verdict.evidence ?? {}), level } };
    }
    first ??= verdict;
  }
  return first === null ? gate.check(candidate, context) : { ...first, evidence: { ...(first.evidence ?? {}), levels: count } };
}
