import type { EventEmitter } from "node:events";
import { Command, CommanderError, InvalidArgumentError } from "commander";
import { EnvforgeError } from "../spec/index.js";
import { escapeControlCharacters } from "./terminal-text.js";
import { admitCommand, evaluateCommand } from "./admit-command.js";
import { benchAdmissionCommand } from "./bench-command.js";
import { benchTrainingCommand } from "./bench-training-command.js";
import { benchSamplingCommand } from "./bench-sampling-command.js";
import { benchDesignerCommand } from "./bench-designer-command.js";
import { benchServeCommand } from "./bench-serve-command.js";
import { benchSignalCommand } from "./bench-signal-command.js";
import { dashboardCommand } from "./dashboard-command.js";
import { evalCommand } from "./eval-command.js";
import { evolveCommand } from "./evolve-command.js";
import { importCommand } from "./import-command.js";
import { exportTensorBoardCommand } from "./export-command.js";
import { exportEnvCommand } from "./export-env-command.js";
import { EXPORT_FORMATS } from "../adapters/formats/index.js";
import { lineageShowCommand, rubricLearnCommand } from "./lineage-command.js";
import { runCommand } from "./run-command.js";
import { serveCommand } from "./serve-command.js";
import { workerCommand } from "./worker-command.js";
import { benchStoreCommand } from "./bench-store-command.js";
import { benchJobsCommand } from "./bench-jobs-command.js";
import { JOB_KINDS } from "../spec/index.js";
import { benchSandboxCommand, sandboxDoctorCommand } from "./sandbox-commands.js";
import { benchTerminalCommand, sandboxRootsCommand } from "./terminal-commands.js";
import { designTerminalCommand } from "./design-terminal-command.js";
import { trainerConformance, trainerDown, trainerStatus, trainerUp } from "./trainer-command.js";

/** A flag value that must be written as a plain decimal integer ≥ `min` (no `1e3`, `0x10` or spaces). */
function integer(name: string, min: number) {
  return (value: string): number => {
    const parsed = /^-?\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(parsed) || parsed < min) throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}, written in decimal digits`);
    return parsed;
  };
}

// a reader that closed the pipe (`envforge … --help | head`) ends the output, not the process with a stack trace
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(process.exitCode ?? 0);
    throw error;
  });
}

const program = new Command()
  .name("envforge")
  .description("Self-play environment synthesis: one policy designs executable RL environments and learns to solve them.")
  .version("0.1.0")
  .exitOverride();

program
  .command("run")
  .description("run self-play rounds: Solver episodes, Designer proposals, admission, calibration")
  .option("--config <file>", "JSON config file (see docs/configuration.md)")
  .option("--rounds <n>", "rounds to run (config: rounds)", integer("--rounds", 1))
  .option("--designs <n>", "Designer proposals per generation round: rounds 1, 1+k, 1+2k, … with k = schedule.designerEvery (config: designer.designs)", integer("--designs", 0))
  .option("--plays <n>", "plays per environment per hint condition (config: plays)", integer("--plays", 1))
  .option("--model <spec>", "embedded | embedded:<name> (gemma-3-270m, qwen2.5-coder-0.5b, qwen2.5-coder-1.5b) | path.gguf | hf:<uri> | http(s)://host/v1#model (config: model.spec)")
  .option("--out <dir>", "run directory (config: out)")
  .option("--seed <n>", "master seed (config: seed)", integer("--seed", 0))
  .option("--resume", "continue the run in --out (default: the newest in runs/) with its stored config")
  .option("--terminal-seeds <dir>", "a folder of Harbor task folders whose terminal tasks join memory, e.g. envs/terminal-seeds (config: terminal.seeds)")
  .option("--allow-network", "let terminal tasks that ask for the network reach it (config: terminal.allowNetwork)")
  .option("--openenv <dir>", "an OpenEnv package folder, or a folder of them, whose environments join memory (config: openenv.packages)")
  .option("--packages <dirs...>", "envforge package folders, or folders of them (e.g. envs/tool-seeds), whose environments join memory (config: pool.packages)")
  .option("--no-seeds", "start memory without the shipped seed games (config: pool.seeds)")
  .option("--store <url>", "keep the run's memory in this PostgreSQL database (postgres://user@host:5432/db; docs/deploy.md) instead of the run folder's SQLite file (config: store.url)")
  .addHelpText("after", "\nExit codes: 0 done; 1 the model never answered; 2 bad flags, config or machine set-up.")
  .action(async (flags, command: Command) => {
    // --no-seeds defaults seeds to true; only a flag given on the command line overrides the config file
    const { seeds, ...rest } = flags as { seeds?: boolean };
    process.exitCode = await runCommand({ ...rest, ...(command.getOptionValueSource("seeds") === "cli" ? { seeds } : {}) });
  });

function backendName(value: string): "bwrap" | "process" {
  if (value !== "bwrap" && value !== "process") throw new InvalidArgumentError("--backend must be bwrap or process");
  return value;
}

const sandbox = program.command("sandbox").description("sandbox tools");

sandbox
  .command("roots")
  .description("build (once, then cached) the Debian roots terminal tasks run in: the terminal seeds', or those of the task folders named")
  .argument("[tasks...]", "Harbor task folders (default: envs/terminal-seeds/*)")
  .addHelpText("after", "\nExit codes: 0 every root is built.")
  .action(async (tasks: string[]) => {
    process.exitCode = await sandboxRootsCommand(tasks);
  });

sandbox
  .command("doctor")
  .description("show which sandbox protections are active on this machine, and how to enable the missing ones")
  .option("--backend <name>", "bwrap | process (config: sandbox.backend)", backendName)
  .option("--json", "print JSON")
  .addHelpText("after", "\nExit codes: 0 namespaces and seccomp active; 1 something essential missing.")
  .action(async (flags) => {
    process.exitCode = await sandboxDoctorCommand(flags);
  });

program
  .command("admit")
  .description("run the admission gates on one environment (an envforge package, an OpenEnv package, a Harbor task), or evaluate a corpus of broken ones")
  .argument("[path]", "an envforge package folder or JSON document, an OpenEnv package folder (openenv.yaml) or a Harbor task folder (task.toml)")
  .option("--json", "print the verdict as JSON")
  .option("--gates <list>", "comma-separated gates to run, in order (config: admission.gates)")
  .option("--skip <list>", "comma-separated gates to leave out (config: admission.skip)")
  .option("--model <spec>", "model for self-review and calibration; without it they do not run (config: model.spec)")
  .option("--benchmarks <path>", "benchmark texts for decontamination, .jsonl or folder (config: admission.benchmarkPath)")
  .option("--config <file>", "JSON config file (see docs/configuration.md)")
  .option("--eval <dir>", "evaluate every labelled fixture folder in <dir> and the seed environments")
  .option("--pool <dir...>", "package folders (or folders of them) added to the novelty pool beside the ten seeds")
  .option("--store <url>", "the deployment's PostgreSQL URL (with --workers remote)")
  .option("--workers <where>", "local | remote: with --eval, admit on envforge worker processes through the job queue at --store (default local)", choice("--workers", ["local", "remote"]))
  .addHelpText("after", "\nExit codes: 0 admitted (--eval: full detection, no false rejections); 1 rejected (--eval: anything missed); 2 usage or I/O error.")
  .action(async (path: string | undefined, flags) => {
    if (flags.eval !== undefined) {
      if (path !== undefined) throw new InvalidArgumentError("give either a package path or --eval <dir>, not both");
      process.exitCode = await evaluateCommand(flags.eval, flags);
    } else if (path === undefined) {
      throw new InvalidArgumentError("admit needs a package path (or --eval <dir>)");
    } else {
      process.exitCode = await admitCommand(path, flags);
    }
  });

program
  .command("import")
  .description("import outside environments as envforge packages: rlve (RLVE's 400 environments from the installed rlve-gym; ./scripts/setup.sh installs it)")
  .argument("<source>", "rlve")
  .option("--out <dir>", "output folder, one package folder per environment (default envs/rlve)")
  .option("--only <names>", "comma-separated RLVE identifiers (Multiplication) or package names (rlve-multiplication)")
  .option("--levels <n>", "levels to try per environment: RLVE's parameter controller after 0..n-1 update() calls (default 10)", integer("--levels", 1))
  .option("--concurrency <n>", "environments probed at the same time (default: one per CPU core)", integer("--concurrency", 1))
  .option("--config <file>", "JSON config file (its sandbox section runs the level probe)")
  .option("--json", "print the import report as JSON")
  .addHelpText("after", "\nExit codes: 0 at least one environment imported; 1 none; 2 bad flags, unknown names or RLVE not installed.")
  .action(async (source: string, flags) => {
    process.exitCode = await importCommand(source, flags);
  });

program
  .command("serve")
  .description("serve environments to RL trainers: OpenEnv's wire protocol (WebSocket /ws; HTTP /reset /step /state /health /metadata /schema) and envforge's /v1 routes, every episode in the sandbox")
  .option("--store <dir>", "serve the environments of a run or evolution directory (its envforge.db, or the PostgreSQL store its store.json names: scores, lineage, frontier)")
  .option("--envs <dir...>", "serve package folders, or folders of them (default: the ten seed environments)")
  .option("--host <address>", "address to bind; anything but loopback needs a token (config: serve.host)")
  .option("--port <n>", "TCP port, 0 = any free one (config: serve.port)", integer("--port", 0))
  .option("--capacity <n>", "concurrent sessions; one more gets CAPACITY_REACHED (config: serve.capacity)", integer("--capacity", 1))
  .option("--token-env <name>", "environment variable holding the accepted bearer tokens, comma-separated (config: serve.tokenEnv)")
  .option("--idle-timeout <s>", "seconds a session may stay silent before it is closed (config: serve.idleTimeoutMs)", integer("--idle-timeout", 1))
  .option("--config <file>", "JSON config file (the serve and sandbox sections; see docs/configuration.md)")
  .addHelpText("after", "\nStops on SIGTERM or SIGINT after draining running episodes. Exit codes: 0 stopped; 2 bad flags, no token for a non-loopback host, or address in use.")
  .action(async (flags) => {
    process.exitCode = await serveCommand(flags);
  });

program
  .command("worker")
  .description("take jobs (admission of candidates, evolution of lineages) from the job queue in a PostgreSQL deployment and run them; many workers on many machines share one queue (docs/deploy.md)")
  .option("--store <url>", "the deployment's PostgreSQL URL, postgres://user@host:5432/db (config: store.url)")
  .option("--roles <list>", `comma-separated job kinds to take: ${JOB_KINDS.join(", ")} (default: all)`)
  .option("--concurrency <n>", "jobs at a time (config: jobs.concurrency)", integer("--concurrency", 1))
  .option("--heartbeat-seconds <n>", "visibility timeout: a job whose worker stops heartbeating this long is run again elsewhere (config: jobs.heartbeatSeconds)", integer("--heartbeat-seconds", 10))
  .option("--retries <n>", "runs after the first that a failing job gets (config: jobs.retryLimit)", integer("--retries", 0))
  .option("--config <file>", "JSON config file (the jobs section; see docs/configuration.md)")
  .addHelpText("after", "\nRuns until SIGTERM or SIGINT. Exit codes: 0 stopped; 2 bad flags or no --store.")
  .action(async (flags) => {
    process.exitCode = await workerCommand(flags);
  });

program
  .command("dashboard")
  .description("a local web page over run and evolution folders: charts over steps, rounds, environments with code and transcripts, designs with verdicts, lineages; read-only, live while a run writes")
  .option("--out <dir...>", "run folders, evolution folders, or folders of them (default: runs/)")
  .option("--host <address>", "address to bind; anything but loopback needs a token in ENVFORGE_DASHBOARD_TOKEN (default 127.0.0.1)")
  .option("--port <n>", "TCP port, 0 = any free one (default 8700)", integer("--port", 0))
  .option("--token-env <name>", "environment variable holding the accepted bearer tokens, comma-separated (default ENVFORGE_DASHBOARD_TOKEN)")
  .addHelpText("after", "\nOpen the printed URL (with a token: http://host:port/#token=<token>). Stops on SIGTERM or SIGINT. Exit codes: 0 stopped; 2 bad flags, no token for a non-loopback host, or address in use.")
  .action(async (flags) => {
    process.exitCode = await dashboardCommand(flags);
  });

const exporter = program.command("export").description("export environments or a run's metrics to other tools");

exporter
  .command("env")
  .description("write environments as installable Python packages for another ecosystem (they run without envforge installed, and without its sandbox)")
  .argument("[environments...]", "ids, unique id prefixes, names, or lineage ids (every generation of the lineage)")
  .requiredOption("--format <format>", `target: ${Object.keys(EXPORT_FORMATS).join(" | ")}`)
  .requiredOption("--out <dir>", "folder to write the packages into (one sub-folder each)")
  .option("--store <dir>", "a run or evolution directory: its environments, with scores, lineage and admission verdicts in the provenance")
  .option("--envs <dirs...>", "package folders (each a package or a folder of them); default the seeds")
  .option("--all", "every environment of the source (narrowed by --skill, --origin)")
  .option("--skill <skill>", "with --all: environments with this skill tag")
  .option("--origin <origin>", "with --all: seed | designer | evolution")
  .option("--replace", "replace package folders that exist")
  .option("--json", "print the written packages as JSON ([{ folder, distribution, module, files, usage }])")
  .addHelpText("after", "\nEach package's README says how to install and use it, and how to play it in a running envforge serve (jailed) instead of in-process. Exit codes: 0 written; 2 bad flags, an unknown environment, or a folder that exists.")
  .action((environments: string[], flags) => {
    process.exitCode = exportEnvCommand(environments, flags);
  });

exporter
  .command("tensorboard")
  .description("write a run's per-step metrics (metrics.jsonl and the store's round reports) as one TensorBoard event file; re-running replaces it")
  .requiredOption("--out <dir>", "run folder (envforge run --out)")
  .option("--to <logdir>", "TensorBoard log folder; the file goes into <logdir>/<run folder name>/ (default <out>/tensorboard; config metrics.tensorboard writes it live during a run)")
  .option("--json", "print JSON ({ eventFile, logDir, runName, tags, points, roundsFromLog, roundsFromStore, trainerSteps, skipped, replaced, notices })")
  .addHelpText("after", "\nView with: tensorboard --logdir <logdir>. Needs trainer/.venv (./scripts/setup.sh). Exit codes: 0 written; 2 no run folder, nothing to export, or no trainer/.venv.")
  .action(async (flags) => {
    process.exitCode = await exportTensorBoardCommand(flags);
  });

program
  .command("design")
  .description("the Designer on its own, writing environments to a folder")
  .command("terminal")
  .description("write terminal tasks (Harbor task folders) with the Designer, grounded on the terminal corpus, and admit each through the terminal gates; resumable")
  .requiredOption("--out <dir>", "output folder: designs/<n>/, admitted/, designs.jsonl")
  .option("--model <spec>", "model (config: model.spec)")
  .option("--designs <n>", "designs to sample", integer("--designs", 1), 8)
  .option("--corpus <path>", "corpus (.jsonl or folder; default corpus/terminal.jsonl)")
  .option("--seed <n>", "master seed", integer("--seed", 0), 1)
  .option("--max-tokens <n>", "completion tokens per design", integer("--max-tokens", 64), 2048)
  .option("--json", "print the report as JSON")
  .addHelpText("after", "\nExit codes: 0 the designs ran (admitted or not).")
  .action(async (flags) => {
    process.exitCode = await designTerminalCommand(flags);
  });

const bench = program.command("bench").description("print speed figures (recorded in docs/benchmarks.md)");

bench
  .command("store")
  .description("store write latency p50/p99 on SQLite and PostgreSQL (a throwaway cluster here, or --store URL): metadata, a rejected design, an admitted design with 16 episodes")
  .option("--json", "print JSON")
  .option("--writes <n>", "writes of each kind per backend", integer("--writes", 10), 500)
  .option("--store <url>", "measure this PostgreSQL server instead of a throwaway cluster (a new schema in it)")
  .action(async (flags) => {
    process.exitCode = await benchStoreCommand(flags);
  });

bench
  .command("jobs")
  .description("admission on envforge worker processes through the job queue: throughput with 1, 2 and 4 workers beside in-process admission, and the queue's overhead per admission")
  .option("--json", "print JSON")
  .option("--workers <list>", "comma-separated worker counts", "1,2,4")
  .option("--fixtures <n>", "broken-environment fixtures admitted beside the ten seeds", integer("--fixtures", 0), 10)
  .option("--store <url>", "use this PostgreSQL server instead of a throwaway cluster (a new namespace in it)")
  .action(async (flags) => {
    process.exitCode = await benchJobsCommand(flags);
  });

bench
  .command("sandbox")
  .description("sandbox vs unisolated Python vs spawn-per-call on the seed environments")
  .option("--json", "print JSON (with stepVsUnisolated and episodeStartVsSpawn)")
  .option("--seconds <n>", "seconds of each throughput run", integer("--seconds", 1))
  .action(async (flags) => {
    process.exitCode = await benchSandboxCommand(flags);
  });

bench
  .command("terminal")
  .description("terminal runtime on one task (default: the seed config-file): root build, episode start, command round trip vs bash -c, disk per session, sessions held at once")
  .argument("[task]", "a Harbor task folder")
  .option("--json", "print JSON")
  .option("--runs <n>", "repeats of each timing", integer("--runs", 1), 50)
  .option("--sessions <n>", "sessions to hold at once", integer("--sessions", 1), 32)
  .option("--build", "also time a first build of the root into an empty cache (downloads from the Debian archive)")
  .action(async (task: string | undefined, flags) => {
    process.exitCode = await benchTerminalCommand(task, flags);
  });

bench
  .command("admission")
  .description("admission gates 1-7, 9 and 10 on the seed environments, one at a time and concurrently")
  .option("--repeats <n>", "passes over the candidates", integer("--repeats", 1), 3)
  .option("--benchmarks <path>", "benchmark texts for the decontamination gate (.jsonl or folder)")
  .action(async (flags) => {
    process.exitCode = await benchAdmissionCommand(flags);
  });

bench
  .command("designer")
  .description("the design funnel on fixed corpus, memory and seeds: parse rate, pass rate per gate, admitted fraction with and without repair turns, seconds per design")
  .option("--model <spec>", "model to design with (config: model.spec)")
  .option("--designs <n>", "designs to sample (config: designer.designs)", integer("--designs", 1), 8)
  .option("--repair-turns <n>", "repair turns per design (config: designer.repairTurns)", integer("--repair-turns", 0))
  .option("--repair-mode <m>", "conversation | restart (config: designer.repairMode)", choice("--repair-mode", ["conversation", "restart"]))
  .option("--format <f>", "scaffold | class | tool (config: designer.format; tool: tool-use environments, memory from pool.packages)", choice("--format", ["scaffold", "class", "tool"]))
  .option("--repetition-penalty <x>", "repetition penalty strength 0-1 (config: designer.repetitionPenalty)", fraction("--repetition-penalty"))
  .option("--grammar", "constrain scaffolded replies with the scaffold grammar (config: designer.grammar, on by default)")
  .option("--no-grammar", "sample scaffolded replies without the grammar")
  .option("--config <file>", "config file over the bench defaults")
  .option("--out <file>", "append every design (completions, verdicts, repair attempts) to this .jsonl file")
  .option("--json", "print JSON")
  .action(async (flags) => {
    process.exitCode = await benchDesignerCommand(flags);
  });

bench
  .command("training")
  .description("the orchestrator's seconds per training step with a zero-latency fake policy and trainer; --real adds the configured trainer")
  .option("--json", "print JSON")
  .option("--real", "also run the same steps with the configured trainer (reference by default) and print the overhead fraction")
  .option("--config <file>", "config file over the quick-start defaults")
  .action(async (flags) => {
    process.exitCode = await benchTrainingCommand(flags);
  });

bench
  .command("sampling")
  .description("Solver rollouts on the llama.cpp engine policy at N episodes in flight vs the trainer's sampler: tokens/s, concurrency speed-up, engine utilisation, engine–trainer KL, adapter sync seconds")
  .option("--episodes <n>", "rollouts per concurrency level", integer("--episodes", 1), 8)
  .option("--turns <n>", "turns per episode (default solver.maxTurns)", integer("--turns", 1))
  .option("--max-tokens <n>", "most tokens per action (default solver.maxTokens)", integer("--max-tokens", 1))
  .option("--concurrency <list>", "episodes in flight, comma-separated levels", levels, [1, 2, 4, 8])
  .option("--env <name>", "seed environment the rollouts play", "number-guess")
  .option("--config <file>", "config file over the defaults (reference trainer on the embedded model)")
  .option("--json", "print JSON (with solverPhaseSpeedup, concurrencySpeedup, engineUtilisation, engineTrainerKl, adapterSyncSeconds)")
  .action(async (flags) => {
    process.exitCode = await benchSamplingCommand(flags);
  });

bench
  .command("signal")
  .description("the learning signal of the seed environments, static levels vs the adaptive level controller, per model: Solver groups whose returns differ, win rates, invalid actions, controller overhead")
  .option("--models <list>", "comma-separated model specs", "embedded,embedded:qwen2.5-coder-0.5b")
  .option("--rounds <n>", "rounds per arm", integer("--rounds", 1), 4)
  .option("--plays <n>", "plays per environment and hint condition", integer("--plays", 1), 4)
  .option("--environments <n>", "seed environments per round", integer("--environments", 1), 10)
  .option("--seed <n>", "master seed, the same in every arm", integer("--seed", 0), 0)
  .option("--out <dir>", "folder of the arms' run folders (default runs/bench-signal-<time>)")
  .option("--config <file>", "config file under every arm (e.g. solver.format, solver.maxTokens)")
  .option("--json", "print only the figures, as JSON, on stdout (progress goes to stderr)")
  .addHelpText("after", "\nExit codes: 0 every arm ran; 1 an arm failed (its run.log says why); 2 bad flags or config.")
  .action(async (flags) => {
    process.exitCode = await benchSignalCommand(flags);
  });

/** Parses a comma-separated list of concurrency levels (integers 1–64). */
function levels(value: string): number[] {
  const parsed = value.split(",").map((part) => (/^\d+$/.test(part.trim()) ? Number(part.trim()) : Number.NaN));
  if (parsed.length === 0 || parsed.some((level) => !(level >= 1 && level <= 64))) throw new InvalidArgumentError("--concurrency takes comma-separated integers from 1 to 64, e.g. 1,2,4,8");
  return parsed;
}

bench
  .command("serve")
  .description("envforge serve vs openenv-core's own server on the same seed environment: sessions held, steps/s and step p50/p99 at 64/256/1024 sessions, memory per idle session")
  .option("--json", "print JSON (with sessionsHeld, stepP99MsAt256, stepsPerSecond, openenvStepsPerSecond, stepsPerSecondVsOpenEnv, idleSessionBytes)")
  .option("--seconds <n>", "seconds of each throughput run", integer("--seconds", 1), 5)
  .option("--env <name>", "seed environment both servers host", "number-guess")
  .option("--sessions <list>", "comma-separated session counts (default 64,256,1024; with --clients one count, default 64)")
  .option("--think-ms <n>", "mean pause before each step, as a trainer generating its next action (0 = closed loop: full throughput)", integer("--think-ms", 0), 0)
  .option("--no-openenv", "leave out the openenv-core baseline (needs .venv-openenv from scripts/setup.sh)")
  .option("--clients", "drive both servers with OpenEnv's own Python clients, openenv-core 0.3.0 and openenv 0.10.0 (.venv-openenv, .venv-openenv10), instead of the load generator")
  .action(async (flags) => {
    process.exitCode = await benchServeCommand(flags);
  });

function fraction(name: string) {
  return (value: string): number => {
    const parsed = /^\d*\.?\d+$/.test(value) ? Number(value) : Number.NaN;
    if (!(parsed >= 0 && parsed <= 1)) throw new InvalidArgumentError(`${name} must be a number from 0 to 1`);
    return parsed;
  };
}

/**
 * The values of `--compare <ids...>`, one at a time: commander takes the word after the flag as its first
 * value even when it is another flag (`eval --compare --json`), so a value that starts with `-` is refused.
 */
function evalIds(value: string, previous: readonly string[] | undefined): string[] {
  if (value.startsWith("-")) throw new InvalidArgumentError(`--compare takes two eval ids (see --list), not the flag ${value}: give the ids right after --compare`);
  return [...(previous ?? []), value];
}

function choice(name: string, allowed: readonly string[]) {
  return (value: string): string => {
    if (!allowed.includes(value)) throw new InvalidArgumentError(`${name} must be one of ${allowed.join(", ")}`);
    return value;
  };
}

program
  .command("eval")
  .description("evaluate a model or a run's checkpoint on held-out suites: Reasoning Gym (SPADE's four buckets) and held-out environments; win rates with 95% intervals, stored and resumable")
  .option("--model <spec>", "embedded | embedded:<name> | path.gguf | hf:<uri> | http(s)://host/v1#model (config: model.spec)")
  .option("--run <dir>", "evaluate a run's policy: its model with the LoRA adapter of --step (and its pool for the environment suites)")
  .option("--step <n>", "optimiser step of --run; 0 = the base model (default: the latest with an adapter)", integer("--step", 0))
  .option("--suite <names...>", "rg | heldout-seeds | holdout | envs:<folder> | terminal:<folder> | bfcl | bfcl:<categories> (config: eval.suites)")
  .option("--tasks <list>", "comma-separated Reasoning Gym tasks, or all (config: eval.tasks; default the 20 fastest, 5 per bucket)")
  .option("--difficulty <d>", "default | hard (the Reasoning Gym paper's hard parameters) (config: eval.difficulty)", choice("--difficulty", ["default", "hard"]))
  .option("--items <n>", "items per Reasoning Gym task (config: eval.items)", integer("--items", 1))
  .option("--episodes <n>", "episodes per held-out environment (config: eval.episodes)", integer("--episodes", 1))
  .option("--bfcl-entries <n>", "entries per BFCL category of the bfcl suites (config: eval.bfclEntries)", integer("--bfcl-entries", 1))
  .option("--bfcl-step-limit <n>", "steps per BFCL user turn before the entry is force-quit, 1 to 20 (BFCL's own) (config: eval.bfclStepLimit)", integer("--bfcl-step-limit", 1))
  .option("--seed <n>", "seed of items and episode seeds (config: eval.seed)", integer("--seed", 0))
  .option("--levels <list>", "levels to play the environment suites at: comma-separated (0,2,5) or all; one-level environments play level 0 only; Reasoning Gym ignores it (default: level 0)")
  .option("--holdout <fraction>", "fraction of --run's pool to hold out when it has no split yet (config: eval.holdoutFraction)", fraction("--holdout"))
  .option("--concurrency <n>", "items or episodes in flight (config: eval.concurrency)", integer("--concurrency", 1))
  .option("--max-tokens <n>", "new tokens per Reasoning Gym answer (config: eval.maxTokens)", integer("--max-tokens", 1))
  .option("--temperature <x>", "sampling temperature, 0 = greedy (config: eval.temperature)", fraction("--temperature"))
  .option("--timeout <s>", "seconds per generation before the item is a model_timeout (config: eval.timeoutMs)", integer("--timeout", 1))
  .option("--store <file>", "eval store (config: eval.store; default <run>/eval.db or runs/eval.db)")
  .option("--config <file>", "JSON config file (see docs/configuration.md)")
  .option("--compare <ids...>", "print A − B win-rate differences with 95% intervals for two stored evals (ids or prefixes)", evalIds)
  .option("--list", "list the evaluations in the store")
  .option("--json", "print JSON ({ model, suites: [{ name, items, winRate, low, high, ... }], buckets: { name: { winRate, low, high, ... } } })")
  .addHelpText("after", "\nRunning the same command again resumes an interrupted evaluation. Exit codes: 0 done; 1 the model answered no item; 2 bad flags, config or set-up.")
  .action(async (flags) => {
    process.exitCode = await evalCommand(flags);
  });

program
  .command("evolve")
  .description("evolve seed environments into harder generations (lineages), without rollouts of the target model")
  .option("--from <dir>", "candidates: a package folder, a folder of packages, a run directory (its pool), \"seeds\", or Harbor task folders (one, or a folder of them: terminal lineages)")
  .option("--generations <n>", "generations per seed (config: evolution.generations)", integer("--generations", 1))
  .option("--direction <d>", "length | scenario | skill | level | mixed (config: evolution.direction; level: a levelled family one level up, no model edit)", choice("--direction", ["length", "scenario", "skill", "level", "mixed"]))
  .option("--effort <e>", "low | high | max (config: evolution.effort)", choice("--effort", ["low", "high", "max"]))
  .option("--out <dir>", "evolution directory (config: out); default runs/evolve-<UTC timestamp>")
  .option("--config <file>", "JSON config file (see docs/configuration.md)")
  .option("--model <spec>", "embedded | embedded:<name> (gemma-3-270m, qwen2.5-coder-0.5b, qwen2.5-coder-1.5b) | path.gguf | hf:<uri> | http(s)://host/v1#model (config: model.spec)")
  .option("--seed <n>", "master seed (config: seed)", integer("--seed", 0))
  .option("--rubrics <file>", "rubric file (config: evolution.rubrics); default rubrics/evolution.md")
  .option("--funnel", "keep only seeds the Solver passes at most 4/8 with ≥ T mean turns (config: evolution.funnel.enabled)")
  .option("--resume", "continue the evolution in --out (default: the newest in runs/)")
  .option("--store <url>", "keep the evolution's store in this PostgreSQL database (schema run_<folder name>; config: store.url)")
  .option("--workers <where>", "local | remote: remote evolves the lineages as jobs on envforge worker processes (needs --store; docs/deploy.md)", choice("--workers", ["local", "remote"]))
  .addHelpText("after", "\nWrites DIR/envforge.db and DIR/lineages.json. Exit codes: 0 done; 1 the model never answered; 2 bad flags or set-up.")
  .action(async (flags) => {
    process.exitCode = await evolveCommand(flags);
  });

program
  .command("lineage")
  .description("inspect lineages of an evolution")
  .command("show <id>")
  .description("print a lineage (id, id prefix or seed name) as a tree with direction, effort and difficulty per generation")
  .option("--from <dir>", "evolution directory (default: the newest runs/evolve-*)")
  .action((id: string, flags) => {
    process.exitCode = lineageShowCommand(id, flags);
  });

program
  .command("rubric")
  .description("edit the evolution rubrics")
  .command("learn")
  .description("append a rubric learned from a reviewed failure of a lineage to the rubric file")
  .requiredOption("--lineage <id>", "lineage id, id prefix or seed name")
  .option("--from <dir>", "evolution directory (default: the newest runs/evolve-*)")
  .option("--generation <n>", "only failures at this generation", integer("--generation", 1))
  .option("--attempt <n>", "only this attempt (1-based)", integer("--attempt", 1))
  .option("--stage <stage>", "plan | child (default: child, then plan)")
  .option("--text <rubric>", "the rubric to add (default: the reviewer's feedback)")
  .option("--rubrics <file>", "rubric file (default: rubrics/evolution.md)")
  .action((flags) => {
    process.exitCode = rubricLearnCommand(flags);
  });

const trainer = program.command("trainer").description("the reference trainer (Tinker API on the CPU) and the conformance suite for any Tinker backend");
trainer
  .command("up")
  .description("start the reference trainer and wait for its health check; log in <out>/trainer.log")
  .option("--out <dir>", "run directory for the trainer's log, state and checkpoints", "runs/trainer")
  .option("--model <spec>", "embedded | embedded:<name> | path.gguf | Hugging Face folder | tiny-random", "embedded")
  .option("--port <n>", "port on 127.0.0.1", integer("--port", 1), 8765)
  .option("--threads <n>", "torch threads; 0 = one per core", integer("--threads", 0), 0)
  .action(async (flags) => {
    process.exitCode = await trainerUp(flags);
  });
trainer
  .command("down")
  .description("stop the reference trainer recorded in <out>")
  .option("--out <dir>", "run directory", "runs/trainer")
  .action(async (flags) => {
    process.exitCode = await trainerDown(flags);
  });
trainer
  .command("status")
  .description("health of the reference trainer recorded in <out> (exit 0 healthy, 1 not)")
  .option("--out <dir>", "run directory", "runs/trainer")
  .addHelpText("after", "\nExit codes: 0 healthy; 1 not running or not healthy; 2 bad flags.")
  .action(async (flags) => {
    process.exitCode = await trainerStatus(flags);
  });
trainer
  .command("conformance")
  .description("check a Tinker-compatible backend: PPO loss and clipping, loss reduction, gradient direction, weight sync, typed errors; with --engine-model, weight sync into llama.cpp")
  .requiredOption("--url <url>", "server root, e.g. http://127.0.0.1:8765")
  .option("--json", "print { passed, failed, checks } as JSON")
  .option("--base-model <name>", "base model to train (default: the first the server lists)")
  .option("--api-key-env <name>", "environment variable holding the API key", "TINKER_API_KEY")
  .option("--engine-model <gguf>", "also check weight sync into llama.cpp: the GGUF the trainer's base model came from (trainer on this machine)")
  .addHelpText("after", "\nExit codes: 0 every check passed; 1 a check failed; 2 bad flags or unreachable server.")
  .action(async (flags) => {
    process.exitCode = await trainerConformance(flags);
  });

/**
 * Every `--help` lists exit codes (README): a command without its own gets the common ones, and a
 * group of commands says that its subcommands' codes apply.
 */
function addCommonExitCodes(command: Command): void {
  for (const sub of command.commands) {
    // commander's Command is an EventEmitter (its typings do not say so); addHelpText("after") listens on afterHelp
    if ((sub as unknown as EventEmitter).listenerCount("afterHelp") === 0) {
      sub.addHelpText("after", sub.commands.length > 0 ? "\nExit codes: those of the subcommand run (see its --help)." : "\nExit codes: 0 done; 2 bad flags, config or set-up.");
    }
    addCommonExitCodes(sub);
  }
}
addCommonExitCodes(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof InvalidArgumentError) {
    process.stderr.write(`envforge: ${error.message}\n`);
    process.exitCode = 2;
  } else if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof EnvforgeError) {
    // messages can quote untrusted text (a package's JSON, a path): no raw control character reaches the terminal
    process.stderr.write(`envforge: ${escapeControlCharacters(error.message)}\n`);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
