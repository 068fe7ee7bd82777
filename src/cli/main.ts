import { Command, CommanderError, InvalidArgumentError } from "commander";
import { EnvforgeError } from "../spec/index.js";
import { evolveCommand } from "./evolve-command.js";
import { lineageShowCommand, rubricLearnCommand } from "./lineage-command.js";
import { runCommand } from "./run-command.js";

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

function choice(name: string, allowed: readonly string[]) {
  return (value: string): string => {
    if (!allowed.includes(value)) throw new InvalidArgumentError(`${name} must be one of ${allowed.join(", ")}`);
    return value;
  };
}

program
  .command("evolve")
  .description("evolve seed environments into harder generations (lineages), without rollouts of the target model")
  .option("--from <dir>", "candidates: a package folder, a folder of packages, a run directory (its pool), or \"seeds\"")
  .option("--generations <n>", "generations per seed (config: evolution.generations)", integer("--generations", 1))
  .option("--direction <d>", "length | scenario | skill | mixed (config: evolution.direction)", choice("--direction", ["length", "scenario", "skill", "mixed"]))
  .option("--effort <e>", "low | high | max (config: evolution.effort)", choice("--effort", ["low", "high", "max"]))
  .option("--out <dir>", "evolution directory (config: out); default runs/evolve-<UTC timestamp>")
  .option("--config <file>", "JSON config file (see README, Configuration)")
  .option("--model <spec>", "embedded | path.gguf | hf:<uri> | http(s)://host/v1#model (config: model.spec)")
  .option("--seed <n>", "master seed (config: seed)", integer("--seed", 0))
  .option("--rubrics <file>", "rubric file (config: evolution.rubrics); default rubrics/evolution.md")
  .option("--funnel", "keep only seeds the Solver passes at most 4/8 with ≥ T mean turns (config: evolution.funnel.enabled)")
  .option("--resume", "continue the evolution in --out (default: the newest in runs/)")
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
