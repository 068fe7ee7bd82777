#!/usr/bin/env node
// Writes the broken terminal-task corpus under fixtures/broken-terminal-tasks/: one Harbor task
// folder per fixture, each the seed envs/terminal-seeds/config-file broken in one way, plus
// expected.json naming the gate and reason that must reject it ({"gate": null}: must be admitted).
// Rerun after changing the seed:
//   node scripts/make-broken-terminal-tasks.mjs
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = new URL("..", import.meta.url).pathname;
const OUT = join(ROOT, "fixtures", "broken-terminal-tasks");
const SEED = join(ROOT, "envs", "terminal-seeds", "config-file");

const PASS_TESTS = "#!/bin/bash\necho 1 > /logs/verifier/reward.txt\n";

/** name → [expected gate, reason, why, edit(folder)] */
const FIXTURES = {
  "copy-of-seed": ["novelty", "text_near_duplicate", "an unchanged copy of the seed config-file (the seeds are the corpus's good tasks)", () => undefined],
  "no-tests": ["static", "missing_file", "tests/test.sh is missing", (dir) => rmSync(join(dir, "tests"), { recursive: true })],
  "task-toml-not-toml": ["static", "invalid_task_toml", "task.toml is not TOML", (dir) => writeFileSync(join(dir, "task.toml"), "[agent\ntimeout_sec = = 3\n")],
  "multi-step-task": ["static", "unsupported_task", "task.toml declares [[steps]]", (dir) => appendToml(dir, '\n[[steps]]\nname = "one"\n')],
  "dockerfile-user": ["static", "dockerfile_unsupported", "the Dockerfile switches USER", (dir) => appendFile(dir, "environment/Dockerfile", "USER nobody\n")],
  "dockerfile-pip-install": ["static", "dockerfile_unsupported", "the Dockerfile fetches from the network at set-up", (dir) => appendFile(dir, "environment/Dockerfile", "RUN pip install requests\n")],
  "setup-command-fails": ["executable", "setup_failed", "a set-up RUN exits 1", (dir) => appendFile(dir, "environment/Dockerfile", "RUN test -f /does/not/exist\n")],
  "tests-write-no-reward": ["executable", "no_reward", "the tests never write reward.txt", (dir) => writeFileSync(join(dir, "tests/test.sh"), "#!/bin/bash\necho checked\n")],
  "tests-write-text-reward": ["executable", "no_reward", "reward.txt holds a word, not a number", (dir) => writeFileSync(join(dir, "tests/test.sh"), "#!/bin/bash\necho passed > /logs/verifier/reward.txt\n")],
  "random-reward": ["deterministic", "nondeterministic", "the tests draw the reward at random", (dir) => writeFileSync(join(dir, "tests/test.sh"), "#!/bin/bash\necho \"0.$(( RANDOM % 1000 ))$(( RANDOM % 1000 ))\" > /logs/verifier/reward.txt\n")],
  "no-solution": ["oracle", "oracle_error", "there is no solution/solve.sh", (dir) => rmSync(join(dir, "solution"), { recursive: true })],
  "wrong-solution": ["oracle", "oracle_failed", "solve.sh writes the wrong port", (dir) => writeFileSync(join(dir, "solution/solve.sh"), readFileSync(join(SEED, "solution/solve.sh"), "utf8").replace("port = 8080", "port = 8081"))],
  "tests-always-pass": ["negative-controls", "empty_solution_passes", "the tests pass whatever the agent did", (dir) => writeFileSync(join(dir, "tests/test.sh"), PASS_TESTS)],
  "hint-too-short": ["hint", "hint_length", "the hint is 8 characters, under admission.hintMinChars", (dir) => setHint(dir, "Use cat.")],
  "hint-gives-solution": ["hint", "hint_leaks_answer", "the hint spells out solve.sh's first command", (dir) => setHint(dir, "Run exactly: cat > /app/config/app.ini <<'END' and then the lines the instruction lists, then END.")],
  "tests-pass-on-any-note": ["negative-controls", "random_commands_pass", "the tests pass as soon as anything is written to /tmp", (dir) => writeFileSync(join(dir, "tests/test.sh"), "#!/bin/bash\nif [ -n \"$(ls -A /tmp)\" ] || [ -f /app/config/app.ini ]; then echo 1; else echo 0; fi > /logs/verifier/reward.txt\n")],
};

function appendFile(dir, file, text) {
  writeFileSync(join(dir, file), readFileSync(join(dir, file), "utf8") + text);
}

function setHint(dir, hint) {
  const path = join(dir, "task.toml");
  writeFileSync(path, readFileSync(path, "utf8").replace(/^hint = .*$/m, `hint = ${JSON.stringify(hint)}`));
}

function appendToml(dir, text) {
  appendFile(dir, "task.toml", text);
}

rmSync(OUT, { recursive: true, force: true });
for (const [name, [gate, reason, why, edit]] of Object.entries(FIXTURES)) {
  const dir = join(OUT, name);
  mkdirSync(OUT, { recursive: true });
  cpSync(SEED, dir, { recursive: true });
  edit(dir);
  writeFileSync(join(dir, "expected.json"), `${JSON.stringify(gate === null ? { gate: null, why } : { gate, reason, why }, null, 2)}\n`);
}
console.log(`wrote ${Object.keys(FIXTURES).length} fixtures to ${OUT}`);
