import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { ExportedEnvironment, ExportFormat, ExportStamp } from "../../spec/index.js";
import { shellWord } from "../../support/shell-word.js";
import { packageReadme, programFiles, provenanceDocument, RUNTIME_FILE, RUNTIME_SOURCE, writeExportFolder } from "./python-package.js";

/** The Harbor task runtime (`envforge_task.py`): show, act, verify and solve, by replaying the logged replies. */
const TASK_RUNTIME = readFileSync(new URL("./envforge_task.py", import.meta.url), "utf8");

/** The seed every exported Harbor task plays (one fixed instance per level, as a benchmark task is). */
export const HARBOR_SEED = 0;

/** Harbor's task name of level `level` of an export: `envforge/<name>__level-<n>`. */
export function harborTaskName(name: string, level: number): string {
  return `envforge/${name}__level-${level}`;
}

/**
 * Harbor (0.25; the task format of Terminal-Bench's successor): a dataset folder
 * `envforge-harbor-<name>/` with one task per level, `<name>-level-<n>/` (`task.toml`,
 * `instruction.md`, `environment/Dockerfile` with the program under `/app`, `tests/test.sh`,
 * `solution/solve.sh`). A text environment fits the format only partly, and the README says where:
 * the agent plays through a shell command (`python3 /app/envforge_task.py act "TEXT"`), which logs
 * its replies; the verifier replays the log against its own copy of the program at the task's seed
 * and level and writes 1 to `/logs/verifier/reward.txt` when the episode is won (the full replay to
 * `episode.json`); the oracle's replies are the solution. The program is in the container, so an
 * agent can read it and compute the answer, and one seed per level makes one fixed instance.
 */
export const harborFormat: ExportFormat = {
  name: "harbor",
  description: "a Harbor dataset folder, one task per level (task.toml, instruction.md, environment/, tests/test.sh, solution/solve.sh)",
  note: "Each task runs the program in the container Harbor builds; its README says where the Harbor format does not fit a text environment.",
  write(environment, outDir, stamp, replace) {
    const name = environment.exportName;
    const distribution = `envforge-harbor-${name}`;
    const manifest = environment.package.manifest;
    const count = manifest.levels?.count ?? 1;
    const files: Record<string, string> = {
      "README.md": harborReadme(environment, distribution, count),
      "provenance.json": `${JSON.stringify(provenanceDocument(environment, stamp), null, 2)}\n`,
    };
    for (let level = 0; level < count; level += 1) Object.assign(files, taskFiles(environment, stamp, `${name}-level-${level}`, level, count));
    const written = writeExportFolder(outDir, distribution, files, replace);
    return { ...written, distribution, module: `${name}-level-0`, usage: `harbor run -p ${shellWord(join(written.folder, `${name}-level-0`))} (one task per level in ${shellWord(written.folder)}; Harbor itself is not installed by envforge)` };
  },
};

/** The files of one task: level `level` of `count`, at {@link HARBOR_SEED}. */
function taskFiles(environment: ExportedEnvironment, stamp: ExportStamp, dir: string, level: number, count: number): Record<string, string> {
  const manifest = environment.package.manifest;
  const task = `${JSON.stringify({ seed: HARBOR_SEED, level: manifest.levels === undefined ? null : level })}\n`;
  const difficulty = count === 1 ? "medium" : level < count / 3 ? "easy" : level < (2 * count) / 3 ? "medium" : "hard";
  const at = (path: string) => join(dir, path);
  return {
    [at("task.toml")]: [
      'schema_version = "1.0"',
      "",
      "[task]",
      `name = ${JSON.stringify(harborTaskName(environment.exportName, level))}`,
      `description = ${JSON.stringify(`${manifest.title}: level ${level} of ${count} of envforge environment ${environment.id}`.slice(0, 300))}`,
      `keywords = ${JSON.stringify(["envforge", ...manifest.skills])}`,
      "",
      "[metadata]",
      `difficulty = ${JSON.stringify(difficulty)}`,
      'category = "envforge-text-environment"',
      "",
      "[verifier]",
      "timeout_sec = 120.0",
      "",
      "[agent]",
      "timeout_sec = 600.0",
      "",
      "[environment]",
      "build_timeout_sec = 600.0",
      "",
    ].join("\n"),
    [at("instruction.md")]: [
      `# ${manifest.title}`,
      "",
      "You are playing a text environment. It shows you an observation and takes your replies, one at a time.",
      "",
      "- See the current observation: `python3 /app/envforge_task.py`",
      '- Send one reply: `python3 /app/envforge_task.py act "YOUR REPLY"` (it answers with the next observation)',
      "",
      `You may send at most ${manifest.maxTurns} replies, and the observation may allow fewer (it says so); the episode`,
      "may end sooner. Answer in the exact format the observation asks for. Your replies are logged and scored when you",
      "stop: the task is solved when the episode is won.",
      "",
    ].join("\n"),
    [at("environment/Dockerfile")]: ["FROM python:3.11-slim", "", "# envforge plays every program with a fixed hash seed; its determinism gate admits programs that rely on it", "ENV PYTHONHASHSEED=0", "WORKDIR /app", "COPY app/ /app/", ""].join("\n"),
    // a reply log left by playing the task locally must not start the container's episode
    [at("environment/.dockerignore")]: "app/episode/\n",
    [at("environment/app/envforge_task.py")]: TASK_RUNTIME,
    [at(`environment/app/${RUNTIME_FILE}`)]: RUNTIME_SOURCE,
    [at("environment/app/task.json")]: task,
    ...programFiles(environment, stamp, at("environment/app/program"), { oracle: false, init: false, hint: false }),
    [at("tests/test.sh")]: [
      "#!/bin/bash",
      "# Replays the agent's logged replies against the tests' own copy of the program, seed and level, and",
      "# writes 1 to reward.txt when the episode is won, else 0 (the replay in episode.json).",
      'LOGS="${ENVFORGE_VERIFIER_LOGS:-/logs/verifier}"',
      'APP="${ENVFORGE_APP_DIR:-/app}"',
      'TESTS="$(cd "$(dirname "$0")" && pwd)"',
      'mkdir -p "$LOGS"',
      "export PYTHONHASHSEED=0 # as envforge plays it: the replay must see what the agent saw",
      'python3 "$TESTS/envforge_task.py" verify "$APP/episode/actions.json" "$LOGS"',
      "",
    ].join("\n"),
    [at("tests/envforge_task.py")]: TASK_RUNTIME,
    [at(`tests/${RUNTIME_FILE}`)]: RUNTIME_SOURCE,
    [at("tests/task.json")]: task,
    ...programFiles(environment, stamp, at("tests/program"), { oracle: false, init: false, hint: true }),
    [at("solution/solve.sh")]: [
      "#!/bin/bash",
      "# The reference policy (envforge's oracle) plays the episode through the agent's own command.",
      "set -e",
      'APP="${ENVFORGE_APP_DIR:-/app}"',
      'SOLUTION="$(cd "$(dirname "$0")" && pwd)"',
      "export PYTHONHASHSEED=0",
      'python3 "$APP/envforge_task.py" solve "$SOLUTION/oracle.py"',
      "",
    ].join("\n"),
    [at("solution/oracle.py")]: environment.package.oracleSource,
  };
}

function harborReadme(environment: ExportedEnvironment, distribution: string, count: number): string {
  const name = environment.exportName;
  const usage = [
    `# one task per level: ${name}-level-0 … ${name}-level-${count - 1}`,
    "# with your own Harbor (pip install harbor, Python >= 3.12; envforge installs only its task model, for its tests)",
    `harbor run -p ${distribution}/${name}-level-0 -a oracle    # the oracle solves it`,
    `harbor run -p ${distribution} -a <agent> -m <model>`,
  ].join("\n");
  const readme = packageReadme(environment, "Harbor", "# a dataset folder: nothing to install; Harbor builds each task's environment/Dockerfile", usage, [
    `program, manifest: \`<task>/environment/app/program/\` (the agent's copy) and \`<task>/tests/program/\` (the verifier's)`,
    "oracle: `<task>/solution/oracle.py`, run by `solution/solve.sh`; not in the agent's container",
    `levels: one task per level, each at seed ${HARBOR_SEED} (\`task.json\`); difficulty easy / medium / hard by thirds of the levels`,
    "maxTurns, reward range, pass threshold: applied by the replay to the final log; reward.txt is 1 when the episode is won, else 0; the return is in `/logs/verifier/episode.json`",
    "hint: in this README and the verifier's `tests/program/env.json`; the agent's copy of `env.json` has none (so its sha256 differs from the provenance's)",
    "scores, lineage, verdicts, sha256: `provenance.json` and `program/provenance.json`",
  ], {
    usageLanguage: "sh",
    safety: [
      "## Safety",
      "",
      "Inside envforge every episode runs in envforge's jail. Here the program runs in the container Harbor builds from",
      "each task's `environment/Dockerfile`, with whatever isolation your Harbor environment gives it (Docker, Modal, …).",
      "It is the program envforge admitted (its sha256 is in `provenance.json`); admission tests behaviour, not intent.",
    ],
  });
  return [
    readme.trimEnd(),
    "",
    "## Where the Harbor format does not fit a text environment",
    "",
    "- Harbor's agent acts through a shell. It plays with `python3 /app/envforge_task.py act \"TEXT\"`, so its replies",
    "  are shell arguments, and a turn is whatever the agent decides to run, not one model reply.",
    "- The environment program is in the agent's container (`/app/program/env.py`): an agent can read it and the",
    "  seed and compute the answer instead of playing. envforge's own episodes never show the program. The",
    "  verifier replays the logged replies against its own copy, so editing `/app` changes nothing but the log.",
    "- The agent's replies are a file it can edit (`/app/episode/actions.json`): it can delete a wrong reply and try",
    "  again, so the turn limit and the one-answer levels bind only the final log, which is what the verifier replays.",
    `- One fixed seed (${HARBOR_SEED}) per level: each task is one instance, not a family of instances.`,
    "- To play a task outside a container, run `python3 envforge_task.py` in its `environment/app` folder: the",
    "  instruction's `/app` paths are the container's. The reply log it writes there (`episode/`) is left out of the",
    "  image by `environment/.dockerignore`.",
    "- The reward is binary (won or not); envforge's return, reward range and per-step rewards are in `episode.json`.",
    "",
  ].join("\n");
}
