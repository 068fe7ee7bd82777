/**
 * Every reason code a reject {@link Verdict} can carry, by the gate or stage that gives it, with one
 * sentence on what it means. `reject` only accepts a (gate, reason) pair listed here (or a
 * {@link SHARED_REASONS} code), so this list is the code's own: the verdict table of
 * docs/admission.md is generated from it (`node scripts/generated-docs.mjs`) and cannot drift.
 * Gates are named as in the admission pipeline (docs/admission.md), the Designer's parser
 * (`parse`) and the evolution loop (docs/evolution.md).
 */
export const VERDICT_REASONS = {
  parse: {
    unparseable: "the Designer's completion holds no fenced code block",
    missing_environment: "no code block defines an environment class with reset() and step() (or the scaffold's generate(), render() and solve())",
    missing_oracle: "no code block defines the oracle's act(env, observation)",
    invalid_manifest: "the manifest block is missing or its fields break the manifest schema",
    missing_task_file: "a terminal design lacks one of task.toml, instruction.md, environment/Dockerfile, tests/test.sh, solution/solve.sh",
    too_large: "a terminal design has more than 16 files or a file over 64 KiB",
  },
  model: {
    model_error: "the model call failed (timeout, refused request); the design never reached the gates",
  },
  static: {
    package_invalid: "the manifest is invalid (schema, levels, reward range)",
    too_large: "env.py or oracle.py is over admission.maxEnvChars or admission.maxOracleChars, or a terminal task's instruction, tests or solution (an OpenEnv package's Python file or openenv.yaml) is over 256 KiB",
    syntax_error: "a source does not parse (Python's ast; nothing runs)",
    missing_environment_class: "env.py defines no class with reset(self, seed) and step(self, action); an OpenEnv package's server/ defines no subclass of Environment, or several",
    several_environment_classes: "env.py defines more than one environment class",
    wrong_arity: "reset or step takes the wrong parameters (reset(self, seed, level) when the manifest declares levels), or act is not act(env, observation)",
    missing_oracle: "oracle.py defines no act(env, observation); an OpenEnv package carries no oracle.py",
    invalid_tool_schema: "a tool's parameters is not a valid JSON Schema (a tool environment)",
    missing_file: "a terminal task folder lacks task.toml, instruction.md, tests/test.sh, environment/Dockerfile or a file its Dockerfile copies; an OpenEnv package lacks openenv.yaml, __init__.py, models.py or server/app.py",
    invalid_openenv_yaml: "an OpenEnv package's openenv.yaml is not YAML, or breaks openenv 0.10's spec (spec_version 1, a name, app server.app:app, a reward range low < high)",
    invalid_package_name: "an OpenEnv package's folder name is not a Python identifier (or openenv- and one): the package imports itself by it",
    invalid_task_toml: "a terminal task's task.toml is not TOML or breaks Harbor's task schema",
    dockerfile_unsupported: "a terminal task's Dockerfile uses what a terminal root cannot honour (another base image, USER, a network fetch at set-up; docs/terminal-environments.md)",
    unsupported_task: "a terminal task asks for what terminal roots do not offer (several steps, GPUs, another OS)",
    unsafe_file: "a terminal task folder or an OpenEnv package holds a symbolic link or a special file (a FIFO, a device): it would be followed on the host when the root is prepared",
  },
  executable: {
    reset_failed: "reset failed on a probe seed",
    step_failed: "step raised on a probe action (\"1\", \"2\", \"test\", empty, 10 KB, non-ASCII)",
    unbounded_episode: "an episode swept with the moves its observations offer (their quoted options, else their numbers and words) did not end within the manifest's maxTurns",
    setup_failed: "a terminal task's root could not be prepared: a Dockerfile RUN failed, or the image could not be built",
    no_reward: "a terminal task's tests, run on the fresh root, wrote no reward to /logs/verifier/reward.txt (or timed out)",
  },
  deterministic: {
    nondeterministic: "a seed replayed in the same session or a fresh process, or the oracle's actions replayed, gave other observations or rewards",
    history_dependent: "reset(seed) after three episodes on the same instance differs from a fresh instance: state carried across resets",
    seeds_identical: "fewer than half of the probe seeds, or of 8 seeds spread up to 10⁶, give distinct instances",
    reset_failed: "reset failed on one of the determinism seeds",
    step_failed: "a step of a probe seed's episode failed",
  },
  oracle: {
    oracle_failed: "the oracle missed the pass threshold on a seed",
    oracle_too_slow: "the oracle's episode ran past the call timeout",
    oracle_error: "the oracle's act raised or returned something that is not an action",
    oracle_invalid_tool_call: "a tool environment: the oracle made a tool call that does not validate against its tool's JSON Schema (or names no tool), so it was refused before the environment",
  },
  "negative-controls": {
    empty_solution_passes: "an agent that sends nothing wins a seed",
    random_agent_passes: "a seeded random agent wins more of its episodes (the seeds and 8 spread seeds) than a one-sided binomial test allows at admission.randomWinRate",
    invalid_action_passes: "an agent that sends only a planted invalid action wins a seed",
    fixed_reply_passes: "one of the oracle's two most common winning replies, replayed as a script, wins every seed (at least 5, plus 8 spread seeds)",
    random_commands_pass: "a terminal task: a seeded agent running harmless commands (listing and reading the files its instruction names) passes the tests",
    answer_without_tools: "a tool environment: the oracle wins without calling a tool, or on a seed where it called one its final messages alone, without the calls, win (the reward does not need the tools)",
    random_tool_calls_pass: "a tool environment: a seeded agent making schema-valid random tool calls wins more of its episodes than the binomial test allows at admission.randomWinRate",
  },
  "scorer-contract": {
    perturbed_answer_accepted: "a perturbed oracle answer (one token changed, wrong type or format, candidate lists, the answer among decoys) still wins every seed",
  },
  hint: {
    hint_length: "the hint is shorter than admission.hintMinChars or longer than admission.hintMaxChars",
    hint_leaks_answer: "the hint holds an answer or secret the oracle sends: literally, normalised, in number words, digits spaced out, or reversed",
  },
  levels: {
    levels_identical: "two adjacent levels build the same first observations",
    difficulty_inverted: "the off-policy difficulty D (oracle turns × first-observation characters) falls from one level to the next by more than levelTolerance",
    difficulty_flat: "the top level is no harder than level 0",
    static_level_out_of_range: "difficulty.staticLevel is not a declared level",
  },
  novelty: {
    exact_copy: "the package is an exact copy (manifest without provenance, and sources) of an environment in the pool (memory, the seeds, the prompt's example, --pool)",
    text_near_duplicate: "MinHash Jaccard of description and code against an environment in the pool is at least admission.textSimilarity",
    behaviour_copy: "the behaviour fingerprint's Jaccard against an environment in the pool is at least admission.behaviourSimilarity",
  },
  decontamination: {
    benchmark_overlap: "a 13-gram of the title, description, hint or the oracle's observations appears in the benchmark texts",
  },
  "self-review": {
    review_rejected: "admission.reviewRejections of the model reviews end VERDICT: REJECT",
    review_unparseable: "no review has a verdict line",
    model_missing: "the gate ran without a model (admit without --model)",
  },
  calibration: {
    too_hard: "the Solver's pass rate is at or below admission.bandLow (a levelled family: at every level searched)",
    too_easy: "the Solver's pass rate is at or above admission.bandHigh (a levelled family: at every level searched)",
    model_missing: "the gate ran without a Solver (admit without --model)",
  },
  modify: {
    model_error: "the Modifier's model call failed",
    patch_failed: "the Modifier's search/replace blocks or diff do not apply to the parent",
    no_change_found: "the Modifier's reply holds no change to env.py or oracle.py",
    invalid_manifest: "the child's manifest changes break the manifest schema",
    child_unchanged: "the child's sources equal the parent's",
  },
  level: {
    no_higher_level: "a \"raise the level\" generation of a family already at its top declared level",
  },
  "behaviour-change": {
    child_behaviour_unchanged: "the child's observations, oracle answers and rewards equal its parent's on every validation seed",
  },
  "plan-check": {
    plan_unchanged: "the planned step sequence equals the current one",
    plan_not_longer: "a LENGTH plan has no more steps than the current sequence",
    plan_outside_span: "a SCENARIO or SKILL plan changes steps outside the span it names",
    plan_wrong_length: "a SCENARIO or SKILL plan does not keep the sequence's number of steps",
    plan_changed_kept: "a SCENARIO plan changed a step's skill, or a SKILL plan a step's scenario (the part the direction keeps)",
    plan_unparseable: "the Planner's reply held no JSON object with a summary and a non-empty list of steps",
  },
  "plan-review": {
    rubric_failed: "the reviewer model rejected the plan against the plan rubrics",
    review_unparseable: "the reviewer's reply held no verdict",
    model_error: "the reviewer's model call failed",
  },
  rubric: {
    rubric_failed: "the reviewer model rejected the child environment against the child rubrics",
    review_unparseable: "the reviewer's reply held no verdict",
    model_error: "the reviewer's model call failed",
  },
} as const satisfies Record<string, Record<string, string>>;

/**
 * Reason codes any gate may give: the program does not load, a step pays outside `rewardRange` or
 * returns an invalid result, or the check itself threw (the pipeline's `gate_error`, the evolution
 * validations' `validation_error`).
 */
export const SHARED_REASONS = {
  load_failed: "env.py or oracle.py failed to load in the sandbox",
  reward_out_of_range: "a step reward or the running return left the manifest's rewardRange",
  invalid_step_result: "step returned something that is not (observation, reward, terminated, truncated, info), or a non-finite reward",
  gate_error: "the gate itself threw (for example the model failed); one candidate cannot stop a run",
  validation_error: "an evolution validation threw while checking a child",
} as const satisfies Record<string, string>;

/** A gate or stage that gives reject verdicts. */
export type VerdictGate = keyof typeof VERDICT_REASONS;

/** A reason code gate `G` gives (its own, or a shared one). */
export type VerdictReason<G extends VerdictGate> = Extract<keyof (typeof VERDICT_REASONS)[G], string> | keyof typeof SHARED_REASONS;
