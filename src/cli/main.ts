import { Command, CommanderError, InvalidArgumentError } from "commander";
import { EnvforgeError } from "../spec/index.js";
import { runCommand } from "./run-command.js";
import { benchSandboxCommand, sandboxDoctorCommand } from "./sandbox-commands.js";

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

function backendName(value: string): "bwrap" | "process" {
  if (value !== "bwrap" && value !== "process") throw new InvalidArgumentError("--backend must be bwrap or process");
  return value;
}

program
  .command("sandbox")
  .description("sandbox tools")
  .command("doctor")
  .description("show which sandbox protections are active on this machine, and how to enable the missing ones")
  .option("--backend <name>", "bwrap | process (config: sandbox.backend)", backendName)
  .option("--json", "print JSON")
  .addHelpText("after", "\nExit codes: 0 namespaces and seccomp active; 1 something essential missing.")
  .action(async (flags) => {
    process.exitCode = await sandboxDoctorCommand(flags);
  });

program
  .command("bench")
  .description("benchmarks")
  .command("sandbox")
  .description("sandbox vs unisolated Python vs spawn-per-call on the seed environments")
  .option("--json", "print JSON (with stepVsUnisolated and episodeStartVsSpawn)")
  .option("--seconds <n>", "seconds of each throughput run", integer("--seconds", 1))
  .action(async (flags) => {
    process.exitCode = await benchSandboxCommand(flags);
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
