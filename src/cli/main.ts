import { Command, CommanderError, InvalidArgumentError } from "commander";
import { EnvforgeError } from "../spec/index.js";
import { runCommand } from "./run-command.js";
import { trainerConformance, trainerDown, trainerStatus, trainerUp } from "./trainer-command.js";

function integer(name: string, min: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min) throw new InvalidArgumentError(`${name} must be an integer ≥ ${min}`);
    return parsed;
  };
}

const program = new Command()
  .name("envforge")
  .description("Self-play environment synthesis: one policy designs executable RL environments and learns to solve them.")
  .version("0.1.0")
  .exitOverride();

program
  .command("run")
  .description("run self-play rounds: Solver episodes, Designer proposals, admission, calibration")
  .option("--config <file>", "JSON config file (see README, Configuration)")
  .option("--rounds <n>", "rounds to run (config: rounds)", integer("--rounds", 1))
  .option("--designs <n>", "Designer proposals per round (config: designer.designs)", integer("--designs", 0))
  .option("--plays <n>", "plays per environment per hint condition (config: plays)", integer("--plays", 1))
  .option("--model <spec>", "embedded | path.gguf | hf:<uri> | http(s)://host/v1#model (config: model.spec)")
  .option("--out <dir>", "run directory (config: out)")
  .option("--seed <n>", "master seed (config: seed)", integer("--seed", 0))
  .option("--resume", "continue the run in --out (default: the newest in runs/) with its stored config")
  .addHelpText("after", "\nExit codes: 0 done; 1 the model never answered; 2 bad flags, config or machine set-up.")
  .action(async (flags) => {
    process.exitCode = await runCommand(flags);
  });

const trainer = program.command("trainer").description("the reference trainer (Tinker API on the CPU) and the conformance suite for any Tinker backend");
trainer
  .command("up")
  .description("start the reference trainer and wait for its health check; log in <out>/trainer.log")
  .option("--out <dir>", "run directory for the trainer's log, state and checkpoints", "runs/trainer")
  .option("--model <spec>", "embedded | path.gguf | Hugging Face folder | tiny-random", "embedded")
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
  .action(async (flags) => {
    process.exitCode = await trainerStatus(flags);
  });
trainer
  .command("conformance")
  .description("check a Tinker-compatible backend: PPO loss and clipping, loss reduction, gradient direction, weight sync, typed errors")
  .requiredOption("--url <url>", "server root, e.g. http://127.0.0.1:8765")
  .option("--json", "print { passed, failed, checks } as JSON")
  .option("--base-model <name>", "base model to train (default: the first the server lists)")
  .option("--api-key-env <name>", "environment variable holding the API key", "TINKER_API_KEY")
  .addHelpText("after", "\nExit codes: 0 every check passed; 1 a check failed; 2 bad flags or unreachable server.")
  .action(async (flags) => {
    process.exitCode = await trainerConformance(flags);
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode === 0 ? 0 : 2;
  } else if (error instanceof EnvforgeError) {
    process.stderr.write(`envforge: ${error.message}\n`);
    process.exitCode = 2;
  } else {
    throw error;
  }
}
