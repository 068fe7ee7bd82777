#!/usr/bin/env node
// Writes the broken-environment corpus under fixtures/broken-envs/: one package folder per
// fixture (env.json, env.py, oracle.py) plus expected.json naming the gate and reason that
// must reject it ({"gate": null} marks a good environment that must be admitted).
// Each fixture breaks one working template (or a seed) in one way. Rerun after changing a template:
//   node scripts/make-broken-envs.mjs
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const OUT = join(ROOT, "fixtures", "broken-envs");
const SEEDS = join(ROOT, "envs", "seeds");
const TOOL_SEEDS = join(ROOT, "envs", "tool-seeds");

const provenance = { origin: "seed", parentId: null, generation: 0, designerModel: null, promptHash: null, corpusDocumentIds: [], createdAt: "2026-11-29T00:00:00.000Z" };

// ---- template 1: single-turn sum of numbers -------------------------------------------------
const SUM_MANIFEST = {
  schemaVersion: 1,
  name: "number-sum",
  title: "Add up the numbers",
  description: "The first observation lists five two-digit numbers. The agent replies once with 'Answer: <total>'. Reward is 1.0 when the total is exact and 0 otherwise.",
  interaction: "single-turn",
  maxTurns: 1,
  rewardRange: [0, 1],
  passThreshold: 1,
  hint: "Add the numbers in pairs and carry the tens carefully; check the total once more before replying.",
  skills: ["arithmetic"],
  scenario: "adding a column of numbers",
  difficulty: {},
  provenance,
};

function sumEnv({ header = "import random\nimport re\n", reset, score, extra = "", klass = "NumberSum" } = {}) {
  return `${header}

${extra}
class ${klass}:
    def reset(self, seed):
${reset ?? `        rng = random.Random(seed)
        self.numbers = [rng.randint(10, 99) for _ in range(5)]
        self.answer = sum(self.numbers)
        self.done = False
        return "Numbers: " + " ".join(str(n) for n in self.numbers) + ". Reply 'Answer: <total>'."`}

    def step(self, action):
        if self.done:
            return ("The episode is over.", 0.0, True, False, {})
        self.done = True
${score ?? `        match = re.fullmatch(r"\\s*Answer:\\s*(-?\\d+)\\s*", action)
        correct = match is not None and int(match.group(1)) == self.answer`}
        return ("Correct." if correct else "Wrong.", 1.0 if correct else 0.0, True, False, {"correct": correct})
`;
}
const SUM_ORACLE = "def act(env, observation):\n    return f\"Answer: {env.answer}\"\n";

// ---- template 2: multi-turn counter ---------------------------------------------------------
const COUNTER_MANIFEST = {
  schemaVersion: 1,
  name: "counter-target",
  title: "Move a counter to its target",
  description: "A counter starts at a value and must reach a target 6 to 9 steps away. Each turn the agent replies 'inc' or 'dec'. Reward 1.0 when the counter equals the target; after 12 turns the episode is truncated with reward 0.",
  interaction: "multi-turn",
  maxTurns: 12,
  rewardRange: [0, 1],
  passThreshold: 1,
  hint: "Compare the counter with the target and move one step towards it every turn.",
  skills: ["planning"],
  scenario: "adjusting a dial",
  difficulty: {},
  provenance,
};

function counterEnv({ move, reached, limit = "12", extraStep = "", feedback = "f\"Counter at {self.value}; target {self.target}.\"" } = {}) {
  return `import random


class CounterTarget:
    def reset(self, seed):
        rng = random.Random(seed)
        self.value = rng.randint(0, 20)
        self.target = self.value + rng.choice([-1, 1]) * rng.randint(6, 9)
        self.turns = 0
        self.done = False
        return f"Counter at {self.value}; bring it to {self.target}. Each turn reply 'inc' or 'dec'."

    def step(self, action):
        if self.done:
            return ("The episode is over.", 0.0, True, False, {})
        self.turns += 1
${extraStep}${move ?? `        command = action.strip().lower()
        if command == "inc":
            self.value += 1
        elif command == "dec":
            self.value -= 1`}
        if ${reached ?? "self.value == self.target"}:
            self.done = True
            return (f"Reached {self.target}.", 1.0, True, False, {})
        if ${limit === null ? "False" : `self.turns >= ${limit}`}:
            self.done = True
            return (f"Out of turns at {self.value}.", 0.0, False, True, {})
        return (${feedback}, 0.0, False, False, {})
`;
}
const COUNTER_ORACLE = "def act(env, observation):\n    return \"inc\" if env.value < env.target else \"dec\"\n";

// ---- template 3: two-code vault (for hint and calibration fixtures) -------------------------
// Each wing has its own fixed code (even rooms 4172, odd rooms 5293), so one fixed reply does not
// win every seed (the negative-controls gate rejects that), while a Solver that remembers both
// codes always wins (calibration's too_easy) and a hint can still state one of them.
const CODE_MANIFEST = {
  schemaVersion: 1,
  name: "room-code",
  title: "Recall the room code",
  description: "The agent is at the door of a room and must reply with its wing's four-digit code as 'Code: <digits>' (even-numbered rooms are in the east wing, odd-numbered rooms in the west wing). Reward 1.0 for the right code.",
  interaction: "single-turn",
  maxTurns: 1,
  rewardRange: [0, 1],
  passThreshold: 1,
  hint: "A wing's code never changes between its rooms; remember both from earlier visits.",
  skills: ["recall"],
  scenario: "entering a building",
  difficulty: {},
  provenance,
};
const CODE_ENV = `import random


class RoomCode:
    def reset(self, seed):
        rng = random.Random(seed)
        self.room = rng.randint(100, 999)
        self.code = "4172" if self.room % 2 == 0 else "5293"
        self.done = False
        return f"You stand at the door of room {self.room}. Reply 'Code: <digits>'."

    def step(self, action):
        if self.done:
            return ("The episode is over.", 0.0, True, False, {})
        self.done = True
        correct = action.strip() == f"Code: {self.code}"
        return ("The door opens." if correct else "The door stays shut.", 1.0 if correct else 0.0, True, False, {})
`;
const CODE_ORACLE = "def act(env, observation):\n    return f\"Code: {env.code}\"\n";

const fixtures = [];
function add(name, expected, why, { manifest = SUM_MANIFEST, env = sumEnv(), oracle = SUM_ORACLE, manifestText, pool } = {}) {
  fixtures.push({ name, expected, why, manifest: { ...manifest, name: manifest.name }, env, oracle, manifestText, pool });
}
const sum = (overrides) => ({ env: sumEnv(overrides) });
const counter = (overrides, manifest = COUNTER_MANIFEST) => ({ manifest, env: counterEnv(overrides), oracle: COUNTER_ORACLE });

// good environments: must be admitted by every mechanical gate
add("good-number-sum", null, "working single-turn template");
add("good-counter-target", null, "working multi-turn template", counter({}));

// 1 static
add("syntax-error-env", ["static", "syntax_error"], "env.py has an unclosed parenthesis", { env: sumEnv().replace("self.answer = sum(self.numbers)", "self.answer = sum(self.numbers") });
add("syntax-error-oracle", ["static", "syntax_error"], "oracle.py is not Python", { oracle: "def act(env, observation)\n    return env.answer\n" });
add("missing-step", ["static", "missing_environment_class"], "the class has reset() but no step()", { env: sumEnv().replace("    def step(self, action):", "    def stop(self, action):") });
add("missing-reset", ["static", "missing_environment_class"], "the class has step() but no reset()", { env: sumEnv().replace("    def reset(self, seed):", "    def restart(self, seed):") });
add("two-environment-classes", ["static", "several_environment_classes"], "two classes with reset() and step()", { env: `${sumEnv()}\n\nclass Spare(NumberSum):\n    def reset(self, seed):\n        return "spare"\n\n    def step(self, action):\n        return ("spare", 0.0, True, False, {})\n` });
add("step-without-action", ["static", "wrong_arity"], "step() takes no action", { env: sumEnv().replace("def step(self, action):", "def step(self):").replace(/action\)/g, "'')") });
add("reset-without-seed", ["static", "wrong_arity"], "reset() takes no seed", { env: sumEnv().replace("def reset(self, seed):", "def reset(self):").replace("random.Random(seed)", "random.Random(0)") });
add("oracle-missing-act", ["static", "missing_oracle"], "oracle.py names its function solve", { oracle: "def solve(env, observation):\n    return f\"Answer: {env.answer}\"\n" });
add("oracle-act-one-argument", ["static", "wrong_arity"], "act() takes only the environment", { oracle: "def act(env):\n    return f\"Answer: {env.answer}\"\n" });
add("env-too-large", ["static", "too_large"], "env.py is over 64 KiB", { env: `${sumEnv()}\n${"# padding padding padding padding padding padding padding padding\n".repeat(1100)}` });
add("manifest-threshold-outside-range", ["static", "package_invalid"], "passThreshold above the reward range", { manifestText: JSON.stringify({ ...SUM_MANIFEST, passThreshold: 2 }, null, 2) });
add("manifest-bad-name", ["static", "package_invalid"], "name is not kebab-case", { manifestText: JSON.stringify({ ...SUM_MANIFEST, name: "Number Sum!" }, null, 2) });
add("manifest-not-json", ["static", "package_invalid"], "env.json is not JSON", { manifestText: "{ name: number-sum" });

// 2 executable
add("crash-on-import", ["executable", "load_failed"], "module-level code raises", sum({ extra: "raise RuntimeError('configuration file missing')\n" }));
add("crash-on-reset", ["executable", "reset_failed"], "reset() divides by zero", sum({ reset: "        self.numbers = [1, 2]\n        self.answer = 1 // 0\n        return 'never'" }));
add("reset-returns-number", ["executable", "reset_failed"], "reset() returns an int", sum({ reset: "        rng = random.Random(seed)\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return self.answer" }));
add("reset-memory-hog", ["executable", "reset_failed"], "reset() allocates far beyond the memory limit", sum({ reset: "        self.blob = bytearray(4 * 1024 * 1024 * 1024)\n        return 'never'" }));
add("crash-on-text-action", ["executable", "step_failed"], "step() calls int() on the raw action", sum({ score: "        correct = int(action.replace('Answer:', '')) == self.answer" }));
add("crash-on-long-action", ["executable", "step_failed"], "step() refuses long actions by raising", sum({ score: "        if len(action) > 1000:\n            raise ValueError('action too long')\n        correct = action.strip() == f'Answer: {self.answer}'" }));
add("crash-on-non-ascii", ["executable", "step_failed"], "step() encodes the action as ASCII", sum({ score: "        correct = action.encode('ascii').decode() == f'Answer: {self.answer}'" }));
add("crash-on-empty-action", ["executable", "step_failed"], "step() indexes the first character", sum({ score: "        first = action[0]\n        correct = first == 'A' and action.strip() == f'Answer: {self.answer}'" }));
add("hang-on-odd-action", ["executable", "step_failed"], "step() loops forever on a non-numeric reply", sum({ score: "        while not any(ch.isdigit() for ch in action):\n            pass\n        correct = action.strip() == f'Answer: {self.answer}'" }));
add("nan-reward", ["executable", "invalid_step_result"], "wrong answers earn NaN", { env: sumEnv().replace("1.0 if correct else 0.0", "1.0 if correct else float('nan')") });
add("infinite-reward", ["executable", "invalid_step_result"], "wrong answers earn -inf", { env: sumEnv().replace("1.0 if correct else 0.0", "1.0 if correct else float('-inf')") });
add("observation-not-string", ["executable", "invalid_step_result"], "step() returns the verdict as a bool", { env: sumEnv().replace('("Correct." if correct else "Wrong.", ', "(correct, ") });
add("huge-int-reward", ["executable", "invalid_step_result"], "wrong answers earn 10**400, an int beyond the float range (a protocol violation, not a harness crash)", { env: sumEnv().replace("1.0 if correct else 0.0", "1.0 if correct else 10 ** 400") });
add("terminal-escapes-in-error", ["executable", "reset_failed"], "reset() raises with ANSI/OSC escapes in the message (title change, screen clear); admit must print them escaped", sum({ reset: "        raise RuntimeError('\\x1b]0;owned\\x07\\x1b[2J\\x1b[31mred alert\\x9b0m')" }));
add("step-returns-four-values", ["executable", "invalid_step_result"], "step() returns a 4-tuple (old Gym API)", { env: sumEnv().replace(', True, False, {"correct": correct})', ', True, {"correct": correct})') });
add("reward-above-range", ["executable", "reward_out_of_range"], "wrong answers earn 5 in a [0, 1] task", { env: sumEnv().replace("1.0 if correct else 0.0", "1.0 if correct else 5.0") });
add("reward-below-range", ["executable", "reward_out_of_range"], "wrong answers earn -1 in a [0, 1] task", { env: sumEnv().replace("1.0 if correct else 0.0", "1.0 if correct else -1.0") });
add("running-return-above-range", ["executable", "reward_out_of_range"], "every step pays 0.4, so the return leaves [0, 1]", counter({ move: "        self.value += 0\n        return (f'Counter at {self.value}.', 0.4, False, False, {})" }));
add("unbounded-episode", ["executable", "unbounded_episode"], "the counter never truncates", counter({ limit: null }));
add("unbounded-on-valid-moves", ["executable", "unbounded_episode"], "any reply but inc or dec ends the episode at once, while inc and dec never run out of turns: a fixed probe list ends it on turn 1, the moves the observation offers never do", counter({ limit: null, move: "        command = action.strip().lower()\n        if command == \"inc\":\n            self.value += 1\n        elif command == \"dec\":\n            self.value -= 1\n        else:\n            self.done = True\n            return (\"Unknown command: the episode is over.\", 0.0, False, True, {\"invalid_action\": True})" }));

// 3 deterministic
add("nondeterministic-clock", ["deterministic", "nondeterministic"], "numbers come from the wall clock", sum({ header: "import random\nimport re\nimport time\n", reset: "        rng = random.Random(seed + time.time_ns())\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return 'Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Reply 'Answer: <total>'.\"" }));
add("nondeterministic-os-random", ["deterministic", "nondeterministic"], "numbers come from os.urandom", sum({ header: "import os\nimport random\nimport re\n", reset: "        self.numbers = [10 + b % 90 for b in os.urandom(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return 'Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Reply 'Answer: <total>'.\"" }));
add("nondeterministic-system-random", ["deterministic", "nondeterministic"], "numbers come from random.SystemRandom", sum({ reset: "        rng = random.SystemRandom()\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return 'Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Reply 'Answer: <total>'.\"" }));
add("state-leaks-across-episodes", ["deterministic", "history_dependent"], "a class attribute counts episodes and shifts the numbers: fork-per-episode hides it, but reset(seed) on a reused instance (the environment server, TRL, verl) gives another episode", sum({ reset: "        NumberSum.episodes = getattr(NumberSum, 'episodes', 0) + 1\n        rng = random.Random(seed + NumberSum.episodes)\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return 'Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Reply 'Answer: <total>'.\"" }));
add("nondeterministic-feedback", ["deterministic", "nondeterministic"], "step feedback quotes the clock", counter({ extraStep: "        import time\n", feedback: "f\"Counter at {self.value}; target {self.target} (clock {time.perf_counter_ns()}).\"" }));
add("reset-hangs-on-seed-5", ["deterministic", "reset_failed"], "reset loops forever on seed 5, beyond the executable gate's probe seeds", sum({ reset: "        while seed == 5:\n            pass\n        rng = random.Random(seed)\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return 'Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Reply 'Answer: <total>'.\"" }));
// issue 17: holes an outside suite of broken environments found
add("seed-clamped", ["deterministic", "seeds_identical"], "the seed is clamped to 100, so every training seed above it serves the same instance (seeds 0-7 all differ)", sum({ reset: "        rng = random.Random(min(seed, 100))\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return 'Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Reply 'Answer: <total>'.\"" }));
add("history-solved-count", ["deterministic", "history_dependent"], "the instance counts solved episodes in __init__ state that reset() never clears, and shows the count", sum({
  reset: "        if not hasattr(self, 'solved'):\n            self.solved = 0\n        rng = random.Random(seed)\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return f'Solved so far: {self.solved}. Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Reply 'Answer: <total>'.\"",
  score: "        match = re.fullmatch(r\"\\s*Answer:\\s*(-?\\d+)\\s*\", action)\n        correct = match is not None and int(match.group(1)) == self.answer\n        self.solved += 1 if correct else 0",
}));
add("history-module-log", ["deterministic", "history_dependent"], "a module-level list of past seeds shifts the instance of every later reset", sum({
  extra: "PAST_SEEDS = []\n",
  reset: "        PAST_SEEDS.append(seed)\n        rng = random.Random(seed * 31 + len(PAST_SEEDS))\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return 'Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Reply 'Answer: <total>'.\"",
}));
add("clock-on-winning-path", ["deterministic", "nondeterministic"], "only a right answer's reward reads the clock (a speed bonus); probe actions never win, the oracle's replayed episode does", {
  manifest: { ...SUM_MANIFEST, passThreshold: 0.9, description: "The first observation lists five two-digit numbers. The agent replies once with 'Answer: <total>'. A right total earns 0.9 plus a small speed bonus; anything else 0." },
  env: sumEnv({ header: "import random\nimport re\nimport time\n" }).replace("1.0 if correct else 0.0", "0.9 + (time.perf_counter_ns() % 997) / 10000 if correct else 0.0"),
});
add("every-seed-identical", ["deterministic", "seeds_identical"], "reset ignores the seed", sum({ reset: "        rng = random.Random(1234)\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return 'Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Reply 'Answer: <total>'.\"" }));
add("seeds-two-variants", ["deterministic", "seeds_identical"], "only the seed's parity matters", sum({ reset: "        rng = random.Random(seed % 2)\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return 'Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Reply 'Answer: <total>'.\"" }));

// 4 oracle
add("oracle-off-by-one", ["oracle", "oracle_failed"], "the oracle adds one", { oracle: "def act(env, observation):\n    return f\"Answer: {env.answer + 1}\"\n" });
add("oracle-wrong-on-odd-seeds", ["oracle", "oracle_failed"], "the oracle only knows even totals", { oracle: "def act(env, observation):\n    return f\"Answer: {env.answer if env.answer % 2 == 0 else 0}\"\n" });
add("oracle-crashes", ["oracle", "oracle_error"], "the oracle reads a missing attribute", { oracle: "def act(env, observation):\n    return f\"Answer: {env.total}\"\n" });
add("oracle-returns-int", ["oracle", "oracle_error"], "the oracle returns an int, not text", { oracle: "def act(env, observation):\n    return env.answer\n" });
add("oracle-too-slow", ["oracle", "oracle_too_slow"], "the oracle waits six turns before moving", { ...counter({}), oracle: "def act(env, observation):\n    if env.turns < 6:\n        return \"wait\"\n    return \"inc\" if env.value < env.target else \"dec\"\n" });
add("reward-above-range-on-oracle-path", ["oracle", "reward_out_of_range"], "a right answer pays 1.5 when the total is odd: only the oracle's path leaves [0, 1], and clipping would hide it", { env: sumEnv().replace("1.0 if correct else 0.0", "(1.5 if self.answer % 2 else 1.0) if correct else 0.0") });
add("running-return-above-range-on-oracle-path", ["oracle", "reward_out_of_range"], "the move that brings the counter next to its target pays 0.6 and reaching it pays 1.0: every step is inside [0, 1], the oracle's return of 1.6 is not, and clipping would hide it (the probes' inc/dec sweep never gets near the target)", counter({ move: "        command = action.strip().lower()\n        before = abs(self.target - self.value)\n        if command == \"inc\":\n            self.value += 1\n        elif command == \"dec\":\n            self.value -= 1\n        if before == 2 and abs(self.target - self.value) == 1:\n            return (f\"Counter at {self.value}; one step from {self.target}.\", 0.6, False, False, {})" }));
add("unwinnable-reward", ["oracle", "oracle_failed"], "the best reward is 0.5 below the threshold of 1", { env: sumEnv().replace("1.0 if correct else 0.0", "0.5 if correct else 0.0") });

// 5 negative controls
add("always-win", ["negative-controls", "empty_solution_passes"], "every reply earns full reward", sum({ score: "        correct = True" }));
add("empty-reply-accepted", ["negative-controls", "empty_solution_passes"], "an empty reply counts as correct", sum({ score: "        correct = action.strip() == '' or action.strip() == f'Answer: {self.answer}'" }));
add("counter-moves-on-anything", ["negative-controls", "empty_solution_passes"], "any reply moves the counter towards the target", counter({ move: "        self.value += 1 if self.value < self.target else -1" }));
add("any-integer-accepted", ["negative-controls", "random_agent_passes"], "any integer reply counts as correct", sum({ score: "        correct = re.search(r'\\d', action) is not None" }));
add("any-word-accepted", ["negative-controls", "random_agent_passes"], "any non-empty reply counts as correct", sum({ score: "        correct = action.strip() != ''" }));
add("long-reply-accepted", ["negative-controls", "invalid_action_passes"], "long replies get the benefit of the doubt", sum({ score: "        correct = len(action.strip()) > 20 or action.strip() == f'Answer: {self.answer}'" }));
add("bracketed-reply-accepted", ["negative-controls", "invalid_action_passes"], "a reply in angle brackets is treated as a wildcard", sum({ score: "        correct = action.strip().startswith('<<') or action.strip() == f'Answer: {self.answer}'" }));
add("same-answer-every-seed", ["negative-controls", "fixed_reply_passes"], "asks whether five two-digit numbers add up to more than zero: the answer is 1 on every seed (a Qwen2.5-Coder-0.5B design did this)", sum({ reset: "        rng = random.Random(seed)\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = 1 if sum(self.numbers) > 0 else 0\n        self.done = False\n        return 'Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Is their total above zero? Reply 'Answer: 1' for yes or 'Answer: 0' for no.\"" }));

// 6 scorer contract
add("substring-scorer", ["scorer-contract", "perturbed_answer_accepted"], "accepts any reply that contains the total anywhere", sum({ score: "        correct = str(self.answer) in action" }));
add("any-number-scorer", ["scorer-contract", "perturbed_answer_accepted"], "accepts a reply if any number in it is the total", sum({ score: "        correct = any(int(n) == self.answer for n in re.findall(r'\\d+', action))" }));
add("off-by-one-tolerated", ["scorer-contract", "perturbed_answer_accepted"], "totals within 2 are accepted", sum({ score: "        match = re.fullmatch(r'\\s*Answer:\\s*(-?\\d+)\\s*', action)\n        correct = match is not None and abs(int(match.group(1)) - self.answer) <= 2" }));
add("percent-tolerance", ["scorer-contract", "perturbed_answer_accepted"], "totals within 1% are accepted", sum({ score: "        match = re.fullmatch(r'\\s*Answer:\\s*(-?\\d+)\\s*', action)\n        correct = match is not None and abs(int(match.group(1)) - self.answer) <= 0.01 * self.answer" }));
add("counter-first-letter-parsing", ["scorer-contract", "perturbed_answer_accepted"], "commands are read by their first letter, so a misspelt command still counts", counter({ move: "        command = action.strip().lower()[:1]\n        if command == 'i':\n            self.value += 1\n        elif command == 'd':\n            self.value -= 1" }));

// candidate lists in the answer's own format (issue 17)
add("answer-among-candidates", ["scorer-contract", "perturbed_answer_accepted"], "accepts a reply of numbers only if the total is among them ('Answer: 254 255 256'); words around the answer are refused, so the extra-text probe passes", sum({ score: "        match = re.fullmatch(r'\\s*Answer:\\s*([\\d\\s,]+?)\\s*', action)\n        correct = match is not None and self.answer in [int(n) for n in re.findall(r'\\d+', match.group(1))]" }));
{
  const HUNT_MANIFEST = {
    ...COUNTER_MANIFEST,
    name: "number-hunt",
    title: "Hunt the hidden number",
    description: "A number from 1 to N (40 to 60, stated) is hidden. Each turn the agent replies 'Guess: <n>' and hears 'higher' or 'lower'. Reward 1.0 when a guess is the number; after 8 guesses the episode is truncated with reward 0.",
    maxTurns: 8,
    hint: "Halve the interval that is still possible with every guess; six guesses always suffice.",
    skills: ["binary search"],
    scenario: "guessing game",
  };
  const HUNT_ENV = `import random
import re


class NumberHunt:
    def reset(self, seed):
        rng = random.Random(seed)
        self.low, self.high = 1, rng.randint(40, 60)
        self.secret = rng.randint(1, self.high)
        self.turns = 0
        self.done = False
        return f"A number from 1 to {self.high} is hidden. Reply 'Guess: <n>' each turn; you hear 'higher' or 'lower'. You have 8 guesses."

    def step(self, action):
        if self.done:
            return ("The episode is over.", 0.0, True, False, {})
        self.turns += 1
        match = re.fullmatch(r"\\s*Guess:\\s*([\\d ,]+?)\\s*", action)
        if match is None:
            feedback = "Reply 'Guess: <n>'."
        else:
            guesses = [int(n) for n in re.findall(r"\\d+", match.group(1))]
            if self.secret in guesses:
                self.done = True
                return ("Found it.", 1.0, True, False, {})
            if guesses[0] < self.secret:
                self.low = max(self.low, guesses[0] + 1)
                feedback = "higher"
            else:
                self.high = min(self.high, guesses[0] - 1)
                feedback = "lower"
        if self.turns >= 8:
            self.done = True
            return ("Out of guesses.", 0.0, False, True, {})
        return (feedback, 0.0, False, False, {})
`;
  const HUNT_ORACLE = "def act(env, observation):\n    return f\"Guess: {(env.low + env.high) // 2}\"\n";
  add("guess-among-candidates", ["scorer-contract", "perturbed_answer_accepted"], "multi-turn: a guess of several numbers wins if the hidden one is among them, so the whole range 1..60 always wins", { manifest: HUNT_MANIFEST, env: HUNT_ENV, oracle: HUNT_ORACLE });
}

// 7 hint
add("hint-states-code", ["hint", "hint_leaks_answer"], "the hint gives the code", { manifest: { ...CODE_MANIFEST, hint: "The code is 4172 in every room; type it exactly." }, env: CODE_ENV, oracle: CODE_ORACLE });
add("hint-spells-code", ["hint", "hint_leaks_answer"], "the hint gives the code with dashes", { manifest: { ...CODE_MANIFEST, hint: "Remember the sequence 4-1-7-2 from the lobby sign." }, env: CODE_ENV, oracle: CODE_ORACLE });
add("hint-gives-full-reply", ["hint", "hint_leaks_answer"], "the hint quotes the winning reply", { manifest: { ...CODE_MANIFEST, hint: "Reply exactly 'Code: 4172' and nothing else." }, env: CODE_ENV, oracle: CODE_ORACLE });
add("hint-gives-worked-answer", ["hint", "hint_leaks_answer"], "the hint quotes seed 0's total", { manifest: { ...SUM_MANIFEST, hint: "Add carefully; for the first room's numbers the reply is Answer: 255, for example." } });
add("hint-number-words", ["hint", "hint_leaks_answer"], "the hint gives the code in number words", { manifest: { ...CODE_MANIFEST, hint: "The lobby sign reads four thousand one hundred seventy-two; it opens every room." }, env: CODE_ENV, oracle: CODE_ORACLE });
add("hint-digit-words", ["hint", "hint_leaks_answer"], "the hint gives the code digit by digit in words", { manifest: { ...CODE_MANIFEST, hint: "Remember the sign: four, one, seven, two." }, env: CODE_ENV, oracle: CODE_ORACLE });
add("hint-spaced-short-answer", ["hint", "hint_leaks_answer"], "the hint gives seed 0's three-digit total with its digits spaced out", { manifest: { ...SUM_MANIFEST, hint: "Add carefully; in the first room the total comes to 2 5 5, for example." } });
add("hint-answer-with-unit", ["hint", "hint_leaks_answer"], "the hint gives seed 0's three-digit total with a unit after it", { manifest: { ...SUM_MANIFEST, hint: "Add carefully; in the first room the crates weigh 255kg together, for example." } });
add("hint-spoken-digit-groups", ["hint", "hint_leaks_answer"], "the hint gives seed 0's total as spoken digit groups", { manifest: { ...SUM_MANIFEST, hint: "Add carefully; in the first room the total is two fifty-five, for example." } });
add("hint-reversed-code", ["hint", "hint_leaks_answer"], "the hint gives the code reversed", { manifest: { ...CODE_MANIFEST, hint: "The lobby sign is written backwards: 2714. Read it the other way round." }, env: CODE_ENV, oracle: CODE_ORACLE });
add("hint-too-short", ["hint", "hint_length"], "the hint is one word", { manifest: { ...SUM_MANIFEST, hint: "Add." } });
add("hint-too-long", ["hint", "hint_length"], "the hint is 1,600 characters of padding", { manifest: { ...SUM_MANIFEST, hint: "Add the numbers carefully and check the carries. ".repeat(32).trim() } });

// 8 self-review (model-based; mechanically sound)
add("review-contradictory-description", ["self-review", "review_rejected"], "the description promises reward for the smallest number, the code pays for the total", { manifest: { ...SUM_MANIFEST, description: "The first observation lists five numbers. Reply with the smallest of them as 'Answer: <n>'; reward 1.0 for the smallest number. The reply must be the total of all five." } });
add("review-unobservable-target", ["self-review", "review_rejected"], "the description says the numbers are hidden, yet the task is to add them", { manifest: { ...SUM_MANIFEST, description: "Five numbers are hidden from the agent and never shown. Reply with their total as 'Answer: <total>'; reward 1.0 when exact." } });
add("review-unrelated-skill", ["self-review", "review_rejected"], "the description and skills describe a chess puzzle", { manifest: { ...SUM_MANIFEST, title: "Mate in two", description: "A chess position is shown; reply with the mating move in algebraic notation. Reward 1.0 for mate.", skills: ["chess tactics"], scenario: "chess puzzle" } });

// 10 decontamination (texts in benchmarks.jsonl)
const BENCHMARK = [
  { id: "bench-arith-001", text: "A farmer has seventeen sheep and all but nine run away through a gap in the fence during the storm; how many sheep does the farmer still have in the field at the end of the day?" },
  { id: "bench-arith-002", text: "Natalia sold clips to forty eight of her friends in April and then she sold half as many clips in May; how many clips did Natalia sell altogether in April and May of that year?" },
  { id: "bench-logic-003", text: "Three boxes are labelled apples, oranges and mixed, and every label is wrong; by drawing a single fruit from one box you can relabel all three boxes correctly, so which box do you draw from?" },
];
add("benchmark-in-description", ["decontamination", "benchmark_overlap"], "the description pastes a benchmark problem", { manifest: { ...SUM_MANIFEST, description: `${SUM_MANIFEST.description} Warm-up: Natalia sold clips to forty eight of her friends in April and then she sold half as many clips in May; how many clips did Natalia sell altogether?` } });
add("benchmark-in-observation", ["decontamination", "benchmark_overlap"], "the first observation pastes a benchmark problem", sum({ reset: "        rng = random.Random(seed)\n        self.numbers = [rng.randint(10, 99) for _ in range(5)]\n        self.answer = sum(self.numbers)\n        self.done = False\n        return 'A farmer has seventeen sheep and all but nine run away through a gap in the fence during the storm. Numbers: ' + ' '.join(str(n) for n in self.numbers) + \". Reply 'Answer: <total>'.\"" }));
add("benchmark-in-hint", ["decontamination", "benchmark_overlap"], "the hint pastes a benchmark puzzle", { manifest: { ...SUM_MANIFEST, hint: "Like the puzzle where three boxes are labelled apples, oranges and mixed, and every label is wrong: check each step." } });

// 11 calibration (model-based; mechanically sound)
add("calibration-too-easy", ["calibration", "too_easy"], "each wing's code is the same in all its rooms, so a Solver that remembers both always wins", { manifest: { ...CODE_MANIFEST }, env: CODE_ENV, oracle: CODE_ORACLE });
add("calibration-impossible", ["calibration", "too_hard"], "a six-digit number is drawn and nothing about it is shown", {
  manifest: { ...CODE_MANIFEST, name: "hidden-number", title: "Name the hidden number", description: "A six-digit number is drawn and hidden. Reply with it as 'Code: <digits>'. Reward 1.0 when it is right.", hint: "There is no information to use; any six-digit number is equally likely." },
  env: CODE_ENV.replace("class RoomCode:", "class HiddenNumber:").replace("self.room = rng.randint(100, 999)", "self.room = rng.randint(100, 999)\n        self.secret = rng.randint(100000, 999999)").replace('action.strip() == f"Code: {self.code}"', 'action.strip() == f"Code: {self.secret}"'),
  oracle: "def act(env, observation):\n    return f\"Code: {env.secret}\"\n",
});

// 9 novelty: copies of seeds
function seed(name, root = SEEDS) {
  const folder = join(root, name);
  return {
    manifest: JSON.parse(readFileSync(join(folder, "env.json"), "utf8")),
    env: readFileSync(join(folder, "env.py"), "utf8"),
    oracle: readFileSync(join(folder, "oracle.py"), "utf8"),
  };
}
/** The manifest as a family of one level (no `levels`, no `difficulty.staticLevel`). */
function withoutLevels(manifest) {
  const { levels: _levels, ...rest } = manifest;
  return rest;
}
function rename(text, pairs) {
  return pairs.reduce((out, [from, to]) => out.replace(new RegExp(`\\b${from}\\b`, "g"), to), text);
}
function stripComments(text) {
  return text.replace(/^"""[\s\S]*?"""\n?/, "").replace(/^\s*#.*\n/gm, "");
}
const designer = { ...provenance, origin: "designer" };
{
  const s = seed("number-guess");
  add("copy-number-guess-renamed", ["novelty", "text_near_duplicate"], "number-guess with its name and title changed only", { manifest: { ...s.manifest, name: "secret-integer", title: "Find the integer", provenance: designer }, env: s.env, oracle: s.oracle });
  const pairs = [["NumberGuessEnv", "HiddenValueGame"], ["parse_int", "read_number"], ["guess_budget", "allowance"], ["INT_RE", "NUMBER_PATTERN"], ["MIN_N", "LOW_BOUND"], ["MAX_N", "HIGH_BOUND"], ["MAX_TURNS", "TURN_CAP"], ["rng", "generator"], ["matches", "found"], ["history", "log"], ["word", "verdict"]];
  add("copy-number-guess-rewritten", ["novelty", "behaviour_copy"], "number-guess with every identifier renamed, comments dropped and the description reworded", {
    manifest: { ...s.manifest, name: "hidden-value", title: "Locate the hidden value", description: "Find the hidden whole number. After each attempt you learn whether it is above or below your attempt, and how many attempts remain; full reward on a hit.", provenance: designer },
    env: rename(stripComments(s.env), pairs).replace(/\n\n\n/g, "\n\n"),
    oracle: rename(stripComments(s.oracle), pairs),
  });
}
{
  // issue 17: reworded (text similarity below the threshold) AND re-sized (every number in the traces differs)
  const s = seed("number-guess");
  const pairs = [["NumberGuessEnv", "HiddenValueGame"], ["parse_int", "read_number"], ["guess_budget", "allowance"], ["INT_RE", "NUMBER_PATTERN"], ["MIN_N", "LOW_BOUND"], ["MAX_N", "HIGH_BOUND"], ["MAX_TURNS", "TURN_CAP"], ["rng", "generator"], ["matches", "found"], ["history", "log"], ["word", "verdict"], ["budget", "allowed"], ["turns", "tries"], ["feedback", "reply"]];
  add("copy-number-guess-resized", ["novelty", "behaviour_copy"], "number-guess reworded (identifiers, description) and re-sized (range 2000-5000 instead of 500-1000, so every number in its traces differs)", {
    manifest: { ...withoutLevels(s.manifest), name: "wide-hidden-value", title: "Track down a concealed integer", description: "Somewhere between one and a bound of a few thousand sits a concealed integer. Submit attempts one per turn; each answer says whether to go up or down and how many tries are left. Hitting it pays 1.", maxTurns: 15, difficulty: { minN: 2000, maxN: 5000 }, provenance: designer },
    // a one-level copy of number-guess as it was before levels (its fixed range 500-1000 resized), kept as a file: the levelled seed has no fixed range to resize
    env: readFileSync(join(ROOT, "scripts", "broken-envs", "number-guess-resized-copy.py"), "utf8"),
    oracle: rename(stripComments(s.oracle), pairs),
  });
}
// issue 17: a near copy of an environment outside the seeds, caught only with that environment in the pool (`pool` key)
add("copy-of-pool-member", ["novelty", "text_near_duplicate"], "good-counter-target renamed: not a seed, so only the fixture's pool (good-counter-target) shows the copy", { ...counter({}, { ...COUNTER_MANIFEST, name: "dial-target", title: "Turn a dial to its mark", provenance: designer }), pool: ["../good-counter-target"] });
for (const name of ["code-breaker", "knapsack", "subset-sum", "shortest-path"]) {
  const s = seed(name);
  add(`copy-${name}-reformatted`, ["novelty", "text_near_duplicate"], `${name} with comments and docstrings dropped and blank lines removed`, {
    manifest: { ...s.manifest, name: `${name}-v2`, provenance: designer },
    env: stripComments(s.env).replace(/\n\s*\n/g, "\n"),
    oracle: stripComments(s.oracle).replace(/\n\s*\n/g, "\n"),
  });
}
{
  const s = seed("longest-increasing-subsequence");
  add("copy-lis-behavioural", ["novelty", "behaviour_copy"], "longest-increasing-subsequence rewritten: the same observations and rewards from different code", {
    manifest: { ...s.manifest, name: "rising-run", title: "Longest rising selection", description: "Given a list of numbers, report how many can be kept, in order, so that each kept number exceeds the previous one.", provenance: designer },
    env: null, // filled from the seed by behaviouralCopy below
    oracle: "def act(env, observation):\n    best = []\n    for i, x in enumerate(env.seq):\n        best.append(1 + max([best[j] for j in range(i) if env.seq[j] < x], default=0))\n    return f\"Answer: {max(best)}\"\n",
  });
}

// tool environments (issue 31): each breaks the bank-ledger tool seed in one way
{
  const s = seed("bank-ledger", TOOL_SEEDS);
  const tools = s.manifest.tools.map((tool) => (tool.name !== "transfer" ? tool : { ...tool, parameters: { ...tool.parameters, properties: { ...tool.parameters.properties, amount: { ...tool.parameters.properties.amount, type: "integr" } } } }));
  add("tool-schema-invalid", ["static", "invalid_tool_schema"], 'transfer\'s amount has type "integr": the tool\'s parameters is not JSON Schema', { manifest: { ...s.manifest, tools }, env: s.env, oracle: s.oracle });
  const call = '            observation, invalid = self.call(action["name"], action["arguments"])\n';
  if (!s.env.includes(call)) throw new Error("bank-ledger changed: update the tool-any-lookup-wins fixture");
  add("tool-any-lookup-wins", ["negative-controls", "random_tool_calls_pass"], "any get_balance call of an existing account wins, so schema-valid random calls win far above chance (the text-only random agent never does)", {
    manifest: s.manifest,
    env: s.env.replace(call, `${call}            if action["name"] == "get_balance" and not invalid:\n                self.done = True\n                return (observation + " Well done.", 1.0, True, False, {})\n`),
    oracle: s.oracle,
  });
  const finalCheck = "if held == self.goal and int(stated[-1]) == held:";
  if (!s.env.includes(finalCheck)) throw new Error("bank-ledger changed: update the tool-answer-without-calls fixture");
  add("tool-answer-without-calls", ["negative-controls", "answer_without_tools"], "the final message wins when it names the goal, whatever the balance: the oracle's 'Balance: N' alone, without its transfers, wins", {
    manifest: s.manifest,
    env: s.env.replace(finalCheck, 'if "Balance:" in action and int(stated[-1]) == self.goal:'),
    oracle: s.oracle,
  });
  const missingLine = "    missing = env.goal - env.accounts[env.target]\n";
  if (!s.oracle.includes(missingLine)) throw new Error("bank-ledger changed: update the tool-oracle-without-calls fixture");
  add("tool-oracle-without-calls", ["negative-controls", "answer_without_tools"], "the final message wins when it states the goal, and the oracle sends only that: the tools are decoration (found by a new-user walkthrough; admitted before)", {
    manifest: s.manifest,
    env: s.env.replace(finalCheck, "if int(stated[-1]) == self.goal:"),
    oracle: s.oracle.replace(missingLine, `    return f"Balance: {env.goal}"\n${missingLine}`),
  });
  const amount = '"amount": min(missing, env.accounts[donor])';
  if (!s.oracle.includes(amount)) throw new Error("bank-ledger changed: update the tool-oracle-call-invalid fixture");
  add("tool-oracle-call-invalid", ["oracle", "oracle_invalid_tool_call"], "the oracle sends transfer's amount as a string (\"5\"), which breaks the tool's schema (an integer): the call is refused before the environment, so the oracle never wins", {
    manifest: s.manifest,
    env: s.env,
    oracle: s.oracle.replace(amount, '"amount": str(min(missing, env.accounts[donor]))'),
  });
}

function writeFixture(fixture) {
  const folder = join(OUT, fixture.name);
  rmSync(folder, { recursive: true, force: true });
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "env.json"), fixture.manifestText ?? `${JSON.stringify(fixture.manifest, null, 2)}\n`);
  writeFileSync(join(folder, "env.py"), fixture.env);
  writeFileSync(join(folder, "oracle.py"), fixture.oracle);
  const expected = {
    ...(fixture.expected === null ? { gate: null, reason: null } : { gate: fixture.expected[0], reason: fixture.expected[1] }),
    why: fixture.why,
    ...(fixture.pool === undefined ? {} : { pool: fixture.pool }),
  };
  writeFileSync(join(folder, "expected.json"), `${JSON.stringify(expected, null, 2)}\n`);
}

const lisCopy = fixtures.find((fixture) => fixture.name === "copy-lis-behavioural");
lisCopy.env = readFileSync(join(ROOT, "scripts", "broken-envs", "lis-behavioural-copy.py"), "utf8");

// only this script's fixtures are rewritten: the hand-written ones beside them (the levelled level-* packages) stay
mkdirSync(OUT, { recursive: true });
for (const fixture of fixtures) writeFixture(fixture);
writeFileSync(join(OUT, "benchmarks.jsonl"), BENCHMARK.map((entry) => JSON.stringify(entry)).join("\n") + "\n");
console.log(`${fixtures.length} fixtures written to ${OUT}`);
