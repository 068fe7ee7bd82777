import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import { reject, type OpenEnvTask, type RejectVerdict } from "../../spec/index.js";
import { readBoundedText, taskFolderDigest, TextTooLargeError, unsafeEntry } from "../terminal/index.js";


/** The part of openenv 0.10's `openenv.yaml` envforge reads; other keys are ignored. */
const OpenEnvYamlSchema = z
  .object({
    spec_version: z.literal(1, { error: "spec_version must be 1 (openenv 0.10)" }),
    name: z.string().min(1).max(100),
    description: z.string().max(4000).optional(),
    app: z.string().regex(/^server\.app:app$/, "envforge plays packages whose app is server.app:app (openenv init's layout)").optional(),
    validation: z
      .object({
        reward: z
          .object({ range: z.tuple([z.number().finite(), z.number().finite()]).refine(([low, high]) => low < high, "range must be [low, high] with low < high").optional() })
          .loose()
          .optional(),
        resources: z
          .object({
            cpu: z.number().positive().max(16).optional(),
            memory_mb: z.number().int().min(64).max(16_384).optional(),
            disk_mb: z.number().int().min(16).max(16_384).optional(),
            episode_timeout_s: z.number().positive().max(7200).optional(),
          })
          .loose()
          .optional(),
        types: z.object({ tags: z.array(z.string()).optional() }).loose().optional(),
      })
      .loose()
      .optional(),
    tags: z.array(z.string()).optional(),
  })
  .loose();

/**
 * The most an OpenEnv package's `validation.resources` may ask for: memory 2048 MiB, disk 1024 MiB,
 * 2 cores, 300 s of wall-clock time per episode (what it asks for above these is cut to them).
 */
export const OPENENV_LIMITS = { memoryMb: 2048, diskMb: 1024, cpus: 2, episodeTimeoutSec: 300 } as const;

/** Whether `folder` looks like an OpenEnv environment package (has an openenv.yaml). */
export function isOpenEnvPackageFolder(folder: string): boolean {
  return existsSync(join(folder, "openenv.yaml"));
}


/** `class Name(…Environment…)` at the start of a line: the environment class of an OpenEnv server module. */
const ENVIRONMENT_CLASS = /^class\s+([A-Za-z_]\w*)\s*\(\s*(?:[\w.]*\.)?Environment\s*[,)]/m;

/**
 * Reads an OpenEnv environment package folder as laid out by `openenv init` (openenv 0.10):
 * `openenv.yaml` (spec_version 1), `__init__.py`, `models.py` (its Action and Observation),
 * `server/app.py` and one server module defining a subclass of OpenEnv's `Environment`; envforge's
 * optional `oracle.py` (`act(env, observation)`) is read too. Nothing runs here: what the folder
 * gets wrong is a `static` reject verdict naming the file and the problem (`missing_file`,
 * `invalid_openenv_yaml`, `invalid_package_name`, `missing_environment_class`, `unsafe_file` (a
 * link, a special file or a hard-linked file), `too_large`), never an
 * exception. That the server starts and the environment plays is for the gates to find, in the jail.
 *
 * @param folder the package folder (relative paths resolve against the working directory)
 */
export function readOpenEnvPackage(folder: string): OpenEnvTask | RejectVerdict {
  const root = resolve(folder);
  const missing = (file: string, why: string): RejectVerdict => reject("static", "missing_file", `${file} is missing: ${why}`, { folder: root, file });
  try {
    if (!existsSync(root) || !statSync(root).isDirectory()) return missing("openenv.yaml", `${root} is not a folder`);
    const unsafe = unsafeEntry(root);
    if (unsafe !== null) return reject("static", "unsafe_file", `${unsafe} is a symbolic link or a special file: a package folder holds plain files and folders only`, { folder: root, file: unsafe });
    const yamlText = readBoundedText(join(root, "openenv.yaml"));
    if (yamlText === null) return missing("openenv.yaml", "an OpenEnv package has openenv.yaml at its top");
    let raw: unknown;
    try {
      raw = parseYaml(yamlText);
    } catch (error) {
      return reject("static", "invalid_openenv_yaml", `openenv.yaml is not YAML: ${(error as Error).message.split("\n")[0]}`, { folder: root });
    }
    const parsed = OpenEnvYamlSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return reject("static", "invalid_openenv_yaml", `openenv.yaml: ${issue?.path.join(".") || "(top)"}: ${issue?.message ?? "invalid"}`, { folder: root });
    }
    const yaml = parsed.data;
    // `openenv init NAME` makes a folder NAME; pip distributions are laid out as openenv-NAME
    const pythonPackage = basename(root).replace(/^openenv-/, "");
    if (!/^[A-Za-z_]\w*$/.test(pythonPackage)) {
      return reject("static", "invalid_package_name", `the package folder's name ${JSON.stringify(basename(root))} is not a Python identifier (or openenv- and one): the package imports itself by it (from ..models import …)`, { folder: root });
    }
    for (const [file, why] of [
      ["__init__.py", "the folder is imported as a Python package"],
      ["models.py", "it defines the Action and Observation models"],
      [join("server", "app.py"), "openenv.yaml's app (server.app:app) is the server that must start"],
    ] as const) {
      if (readBoundedText(join(root, file)) === null) return missing(file, why);
    }
    // only modules Python can import by name (the name also goes into the driver's command line)
    const serverFiles = readdirSync(join(root, "server")).filter((name) => /^[A-Za-z_]\w*\.py$/.test(name) && name !== "app.py" && name !== "__init__.py").sort();
    const defining = serverFiles.flatMap((name) => {
      const source = readBoundedText(join(root, "server", name)) ?? "";
      const match = ENVIRONMENT_CLASS.exec(source);
      return match?.[1] === undefined ? [] : [{ name, source, className: match[1] }];
    });
    if (defining.length !== 1) {
      return reject(
        "static",
        "missing_environment_class",
        defining.length === 0 ? "no module in server/ defines a subclass of OpenEnv's Environment" : `several modules in server/ define an Environment subclass (${defining.map((entry) => entry.name).join(", ")}); envforge plays packages with one`,
        { folder: root },
      );
    }
    const environment = defining[0] as { name: string; source: string; className: string };
    const oracle = readBoundedText(join(root, "oracle.py"));
    const readme = readBoundedText(join(root, "README.md")) ?? "";
    const resources = yaml.validation?.resources ?? {};
    const tags = (yaml.validation?.types?.tags ?? yaml.tags ?? []).filter((tag) => tag.trim() !== "").slice(0, 8);
    return {
      name: yaml.name,
      folder: root,
      pythonPackage,
      environmentModule: `server.${environment.name.replace(/\.py$/, "")}`,
      environmentClass: environment.className,
      description: (yaml.description ?? firstParagraph(readme)).slice(0, 4000),
      rewardRange: yaml.validation?.reward?.range ?? [0, 1],
      // what openenv.yaml asks for, within envforge's caps (a package must not size its own jail)
      resources: {
        memoryMb: Math.min(resources.memory_mb ?? 1024, OPENENV_LIMITS.memoryMb),
        diskMb: Math.min(resources.disk_mb ?? 256, OPENENV_LIMITS.diskMb),
        cpus: Math.min(resources.cpu ?? 1, OPENENV_LIMITS.cpus),
        episodeTimeoutSec: Math.min(resources.episode_timeout_s ?? 300, OPENENV_LIMITS.episodeTimeoutSec),
      },
      hasOracle: oracle !== null,
      tags,
      filesDigest: taskFolderDigest(root),
      source: environment.source,
      oracle: oracle ?? "",
    };
  } catch (error) {
    if (error instanceof TextTooLargeError) return reject("static", "too_large", error.message, { folder: root });
    return reject("static", "missing_file", `cannot read the package folder: ${(error as Error).message}`, { folder: root });
  }
}

/** The README's first paragraph that is not a heading, front matter or a badge line. */
function firstParagraph(readme: string): string {
  const body = readme.replace(/^---\n[\s\S]*?\n---\n/, "");
  return (
    body
      .split(/\n\s*\n/)
      .map((block) => block.trim())
      .find((block) => block !== "" && !block.startsWith("#") && !block.startsWith("[![") && !block.startsWith("```")) ?? ""
  );
}

/**
 * The OpenEnv package folders directly under `folder` (those with an openenv.yaml), sorted by path,
 * each read ({@link readOpenEnvPackage}); `folder` itself when it is one. Empty when there is none.
 */
export function readOpenEnvPackageFolders(folder: string): (OpenEnvTask | RejectVerdict)[] {
  if (!existsSync(folder) || !statSync(folder).isDirectory()) return [];
  if (isOpenEnvPackageFolder(folder)) return [readOpenEnvPackage(folder)];
  return readdirSync(folder, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && isOpenEnvPackageFolder(join(folder, entry.name)))
    .map((entry) => join(folder, entry.name))
    .sort()
    .map(readOpenEnvPackage);
}
