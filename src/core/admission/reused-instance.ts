/**
 * The history-dependence probe (Gymnasium's contract: `reset(seed)` on an
 * instance that already played gives the same episode as on a fresh one).
 * envforge forks a fresh episode process for every `reset`, which hides class
 * attributes, module globals and instance fields carried across resets; the
 * environment server, TRL and verl keep one instance, and would see them. The
 * probe therefore loads a variant of `env.py` whose `reset(seed)` first plays
 * warm-up episodes on the same instance, in the same process, and only then
 * resets to `seed`: its transcripts must equal those of the fresh instance.
 * Several warm-ups ({@link HISTORY_WARM_UPS}) catch state that shows only from
 * a later episode on (a counter that changes the task at its third reset).
 */

/** Warm-up episodes played on the instance before each probed `reset(seed)`: the probed episode is the instance's fourth. */
export const HISTORY_WARM_UPS = 3;

/** The warm-up episode played before `reset(seed)`: another seed and the actions sent in it. */
export interface WarmUp {
  readonly seed: number;
  readonly actions: readonly string[];
}

/**
 * Python lines (the body of a function, indented four spaces) that bind the module's environment
 * class to `_environment`, found as the sandbox finds it (exactly one class defined in the module
 * with `reset` and `step`), and return when there is not exactly one. Shared by every probe that
 * patches the class's `reset` (the history probe, the level views, the raised level).
 */
export const FIND_ENVIRONMENT_CLASS = `    _classes = [value for value in list(globals().values())
                if isinstance(value, type) and value.__module__ == __name__
                and callable(getattr(value, "reset", None)) and callable(getattr(value, "step", None))]
    if len(_classes) != 1:
        return
    _environment = _classes[0]`;

/** The line that separates the candidate's code from the appended probe. */
export const REUSED_INSTANCE_MARKER = "# ---- envforge history probe: every reset first plays a warm-up episode on this instance ----";

/**
 * `envSource` with the history probe appended: the module's environment class
 * (exactly one class defined in the module with `reset` and `step`, as the
 * sandbox finds it) gets a `reset(seed)` that first plays each warm-up in turn,
 * calling the original `reset(warmUp.seed)` and `step`ping its actions until the
 * episode ends (an exception in a warm-up is swallowed: only the episode after
 * them is compared), then returns the original `reset(seed)`. Seeds without an
 * entry in `warmUps` are reset directly. The warm-ups travel as a JSON literal
 * (JSON of strings, integers and arrays is a Python literal).
 *
 * @param warmUps the warm-up episodes before each probed seed, in order, by seed
 */
export function reusedInstanceSource(envSource: string, warmUps: ReadonlyMap<number, readonly WarmUp[]>): string {
  const table = JSON.stringify(Object.fromEntries([...warmUps].map(([seed, episodes]) => [String(seed), episodes.map((warmUp) => [warmUp.seed, warmUp.actions])])));
  return `${envSource}

${REUSED_INSTANCE_MARKER}
def _envforge_reuse_instance(_table=${table}):
${FIND_ENVIRONMENT_CLASS}
    _fresh_reset = _environment.reset

    def reset(self, seed):
        for _warm_seed, _actions in _table.get(str(seed), []):
            try:
                _fresh_reset(self, _warm_seed)
                for _action in _actions:
                    _result = self.step(_action)
                    if isinstance(_result, tuple) and len(_result) == 5 and (_result[2] is True or _result[3] is True):
                        break
            except Exception:
                pass
        return _fresh_reset(self, seed)

    _environment.reset = reset


_envforge_reuse_instance()
del _envforge_reuse_instance
`;
}
