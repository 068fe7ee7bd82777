import { createHash } from "node:crypto";
import { closeSync, existsSync, lstatSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { parse as parseToml } from "smol-toml";
import { z } from "zod";
import { reject, type RejectVerdict, type TerminalSetupStep, type TerminalTask } from "../../spec/index.js";
import { isRefusal, parseDockerfile } from "./dockerfile.js";
import { readBoundedText, TextTooLargeError } from "./bounded-text.js";


/** Most seconds a task may ask for its agent or its tests (a model-written task could ask for a day). */
const Seconds = z.number().positive().max(2 * 3600);

/** The part of Harbor 0.25's `task.toml` (`TaskConfig`) a terminal root honours; other keys are kept in `metadata` or ignored. */
const TaskTomlSchema = z
  .object({
    schema_version: z.string().optional(),
    task: z.object({ name: z.string().min(1).max(200).optional() }).loose().optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
    verifier: z.object({ timeout_sec: Seconds.optional() }).loose().optional(),
    agent: z.object({ timeout_sec: Seconds.optional() }).loose().optional(),
    environment: z
      .object({
        docker_image: z.string().optional(),
        os: z.enum(["linux"]).optional(),
        cpus: z.number().min(0).max(16).optional(),
        memory_mb: z.number().int().min(64).max(16_384).optional(),
        storage_mb: z.number().int().min(16).max(16_384).optional(),
        gpus: z.number().int().max(0, "GPUs are not available to terminal roots").optional(),
        allow_internet: z.boolean().optional(),
        network_mode: z.enum(["no-network", "public", "allowlist"]).optional(),
        env: z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "variable names are letters, digits and _"), z.string().max(4096)).optional(),
        workdir: z
          .string()
          .regex(/^\/[\w./-]*$/, "an absolute path of letters, digits, _ . - /")
          .refine((path) => !path.split("/").includes(".."), "no .. in the working directory")
          .optional(),
      })
      .loose()
      .optional(),
    steps: z.undefined({ error: "multi-step tasks ([[steps]]) are not supported" }).optional(),
  })
  .loose();


/**
 * The first entry of a task or package folder that is not a plain file or folder (or is a file with
 * another hard link: it could be a host file linked in) (a symbolic link, a FIFO,
 * a device, a socket), as a path relative to the folder; null when there is none. Links are
 * refused whatever they point at: a link in `environment/` or `tests/` would be followed on the
 * host when the root is prepared, and reach host files.
 */
export function unsafeEntry(root: string): string | null {
  const walk = (folder: string): string | null => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) {
        const found = walk(path);
        if (found !== null) return found;
      } else if (!entry.isFile() || lstatSync(path).nlink > 1) return relative(root, path);
    }
    return null;
  };
  return lstatSync(root).isSymbolicLink() ? "." : walk(root);
}

/**
 * sha256 (hex) over every file of a task or package folder, relative paths and bytes in path order
 * (dot-files and fixture labels too: everything that is copied into a root counts): a task's
 * `filesDigest`. Files are read in 1 MiB chunks.
 * @throws what reading the folder throws (ENOENT for a folder that is gone)
 */
export function taskFolderDigest(root: string): string {
  const hash = createHash("sha256");
  const chunk = Buffer.alloc(1024 * 1024);
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        hash.update(`${relative(root, path)}\0`);
        const fd = openSync(path, "r");
        try {
          for (let read = readSync(fd, chunk); read > 0; read = readSync(fd, chunk)) hash.update(chunk.subarray(0, read));
        } finally {
          closeSync(fd);
        }
        hash.update("\0");
      }
    }
  };
  walk(root);
  return hash.digest("hex");
}

/**
 * The Harbor task folders directly under `folder` (those with a task.toml), sorted by path, each
 * read ({@link readHarborTask}: a task, or the `static` verdict of a folder that does not read);
 * `folder` itself when it is one. Empty when there is none or `folder` does not exist.
 */
export function readHarborTaskFolders(folder: string): (TerminalTask | RejectVerdict)[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return [];
  if (isHarborTaskFolder(folder)) return [readHarborTask(folder)];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isHarborTaskFolder(join(folder, entry.name)))
    .map((entry) => join(folder, entry.name))
    .sort()
    .map(readHarborTask);
}

/** Whether `folder` looks like a Harbor task (has a task.toml). */
export function isHarborTaskFolder(folder: string): boolean {
  return existsSync(join(folder, "task.toml"));
}

/**
 * Reads a Harbor task folder (`task.toml`, `instruction.md`, `environment/Dockerfile`,
 * `tests/test.sh`, `solution/solve.sh`) as a {@link TerminalTask}. What the folder gets wrong is
 * a `static` reject verdict naming the file and the problem (`missing_file`, `invalid_task_toml`,
 * `dockerfile_unsupported`, `unsupported_task`, `unsafe_file`: a symbolic link or special file
 * anywhere in the folder, `too_large`: a text file over 256 KiB), never an exception. The Dockerfile subset
 * honoured is described in `dockerfile.ts` and docs/terminal-environments.md.
 *
 * @param folder the task folder (relative paths resolve against the working directory)
 */
export function readHarborTask(folder: string): TerminalTask | RejectVerdict {
  const root = resolve(folder);
  const missing = (file: string, why: string): RejectVerdict => reject("static", "missing_file", `${file} is missing: ${why}`, { folder: root, file });
  try {
    if (!existsSync(root)) return missing("task.toml", `${root} does not exist`);
    const unsafe = unsafeEntry(root);
    if (unsafe !== null) return reject("static", "unsafe_file", `${unsafe} is a symbolic link or a special file: a task folder holds plain files and folders only`, { folder: root, file: unsafe });
    const tomlText = readBoundedText(join(root, "task.toml"));
    if (tomlText === null) return missing("task.toml", "a Harbor task folder has task.toml at its top");
    let raw: unknown;
    try {
      raw = parseToml(tomlText);
    } catch (error) {
      return reject("static", "invalid_task_toml", `task.toml is not valid TOML: ${(error as Error).message.split("\n")[0]}`, { folder: root });
    }
    const parsed = TaskTomlSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.join(".") || "(top)";
      const reason = where === "steps" || where.startsWith("environment.gpus") || where.startsWith("environment.os") ? "unsupported_task" : "invalid_task_toml";
      return reject("static", reason, `task.toml: ${where}: ${issue?.message ?? "invalid"}`, { folder: root });
    }
    const config = parsed.data;
    const instruction = readBoundedText(join(root, "instruction.md"));
    if (instruction === null || instruction.trim() === "") return missing("instruction.md", "it tells the agent what to do");
    const testsText = readBoundedText(join(root, "tests", "test.sh"));
    if (testsText === null) return missing("tests/test.sh", "it checks the agent's work and writes /logs/verifier/reward.txt");
    const dockerfileText = readBoundedText(join(root, "environment", "Dockerfile"));
    const environment = config.environment ?? {};
    if (dockerfileText === null && environment.docker_image === undefined) return missing("environment/Dockerfile", "it (or [environment].docker_image) says what the root holds");
    const plan = parseDockerfile(dockerfileText ?? `FROM ${environment.docker_image as string}`);
    if (isRefusal(plan)) return reject("static", "dockerfile_unsupported", `environment/Dockerfile line ${plan.line}: ${plan.message}`, { folder: root, line: plan.line });
    const steps: TerminalSetupStep[] = [];
    for (const step of plan.steps) {
      if (step.kind === "run") {
        steps.push(step);
        continue;
      }
      const from = resolve(root, "environment", step.from);
      if (!from.startsWith(join(root, "environment"))) return reject("static", "dockerfile_unsupported", `COPY ${step.from} leaves environment/`, { folder: root });
      if (!existsSync(from)) return missing(`environment/${step.from}`, "the Dockerfile copies it");
      // a folder's contents go to the destination; a file goes into it when it names a folder
      const to = statSync(from).isDirectory() || !step.intoFolder ? step.to : `${step.to.replace(/\/$/, "")}/${basename(from)}`;
      steps.push({ kind: "copy", from, to });
    }
    const solveText = readBoundedText(join(root, "solution", "solve.sh"));
    const network = environment.allow_internet === true || environment.network_mode === "public";
    return {
      name: config.task?.name ?? basename(root),
      folder: root,
      instruction,
      image: { suite: plan.suite, packages: plan.packages },
      setup: steps,
      workdir: environment.workdir ?? plan.workdir,
      env: { ...plan.env, ...(environment.env ?? {}) },
      network,
      testsDir: join(root, "tests"),
      tests: testsText,
      solutionDir: solveText === null ? null : join(root, "solution"),
      solution: solveText,
      agentTimeoutSec: config.agent?.timeout_sec ?? 600,
      verifierTimeoutSec: config.verifier?.timeout_sec ?? 120,
      storageMb: environment.storage_mb ?? 256,
      memoryMb: environment.memory_mb ?? 1024,
      cpus: environment.cpus ?? 1,
      metadata: config.metadata ?? {},
      filesDigest: taskFolderDigest(root),
    };
  } catch (error) {
    if (error instanceof TextTooLargeError) return reject("static", "too_large", error.message, { folder: root });
    return reject("static", "missing_file", `cannot read the task folder: ${(error as Error).message}`, { folder: root });
  }
}
