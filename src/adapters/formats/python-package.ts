import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { ConfigError, type ExportedEnvironment, type ExportStamp } from "../../spec/index.js";
import { PACKAGE_FILES } from "../package-files/index.js";

/** The note of the formats whose packages run the program in the user's own process. */
export const LOCAL_PROGRAM_NOTE = "They run the environment program WITHOUT a sandbox; each README says how to play it in an envforge serve instead.";

/** The standard-library runtime every exported package carries (`envforge_episode.py`: local and remote episodes). */
export const RUNTIME_SOURCE = readFileSync(new URL("./envforge_episode.py", import.meta.url), "utf8");

/** The runtime's file name inside an exported module. */
export const RUNTIME_FILE = "envforge_episode.py";

/**
 * The provenance document of an export (`program/provenance.json`): envforge's content id, the
 * sha256 of each program file as exported, the manifest's provenance (origin, parent, generation,
 * Designer model, prompt hash, corpus documents), calibration scores, the admitting round, the
 * lineage position and the admission verdicts the store kept.
 */
export function provenanceDocument(environment: ExportedEnvironment, stamp: ExportStamp): Record<string, unknown> {
  const pkg = environment.package;
  const manifest = `${JSON.stringify(pkg.manifest, null, 2)}\n`;
  return {
    id: environment.id,
    name: pkg.manifest.name,
    exportedBy: `envforge ${stamp.version}`,
    exportedAt: stamp.exportedAt,
    sha256: { [PACKAGE_FILES.env]: sha256(pkg.envSource), [PACKAGE_FILES.oracle]: sha256(pkg.oracleSource), [PACKAGE_FILES.manifest]: sha256(manifest) },
    origin: pkg.manifest.provenance,
    scores: environment.scores,
    round: environment.round,
    lineage: environment.lineage,
    admission: environment.verdicts,
  };
}

/** A Python identifier from an environment name: `number-guess` → `number_guess` (a leading digit gets `env_`). */
export function pythonName(name: string): string {
  const snake = name.toLowerCase().replace(/[^a-z0-9]+/g, "_").replace(/^_+|_+$/g, "");
  return /^[0-9]/.test(snake) ? `env_${snake}` : snake;
}

/** A PascalCase class-name stem: `number-guess` → `NumberGuess`. */
export function pascalName(name: string): string {
  return pythonName(name)
    .split("_")
    .filter((part) => part !== "")
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join("");
}

/** What {@link writePythonPackage} writes besides the program. */
export interface PythonPackageLayout {
  /** The package folder's name under the export folder (the distribution name). */
  readonly distribution: string;
  /** Folder of the Python module inside the package folder (`"."` for OpenEnv's flat layout). */
  readonly moduleDir: string;
  /** Files of the format, relative to the package folder. */
  readonly files: Readonly<Record<string, string>>;
}

/**
 * Writes an exported package: the format's files, and in the module folder the runtime
 * (`envforge_episode.py`) and `program/` (env.py, oracle.py, env.json exactly as admitted, and
 * provenance.json). Returns the package folder and the files written (relative, sorted).
 * @throws ConfigError when the folder exists and `replace` is false
 */
export function writePythonPackage(environment: ExportedEnvironment, outDir: string, stamp: ExportStamp, layout: PythonPackageLayout, replace: boolean): { folder: string; files: string[] } {
  const program = join(layout.moduleDir, "program");
  return writeExportFolder(outDir, layout.distribution, {
    ...layout.files,
    [join(layout.moduleDir, RUNTIME_FILE)]: RUNTIME_SOURCE,
    ...programFiles(environment, stamp, program, { oracle: true, init: true, hint: true }),
  }, replace);
}

/**
 * The files of `program/` under `dir`: env.py, env.json as admitted (without its `hint` when
 * `include.hint` is false, for a copy the player can read), provenance.json, and (as asked)
 * oracle.py and an empty `__init__.py`.
 */
export function programFiles(environment: ExportedEnvironment, stamp: ExportStamp, dir: string, include: { readonly oracle: boolean; readonly init: boolean; readonly hint: boolean }): Record<string, string> {
  const pkg = environment.package;
  const { hint: _hint, ...withoutHint } = pkg.manifest;
  return {
    ...(include.init ? { [join(dir, "__init__.py")]: "" } : {}),
    [join(dir, PACKAGE_FILES.env)]: pkg.envSource,
    ...(include.oracle ? { [join(dir, PACKAGE_FILES.oracle)]: pkg.oracleSource } : {}),
    [join(dir, PACKAGE_FILES.manifest)]: `${JSON.stringify(include.hint ? pkg.manifest : withoutHint, null, 2)}\n`,
    [join(dir, "provenance.json")]: `${JSON.stringify(provenanceDocument(environment, stamp), null, 2)}\n`,
  };
}

/**
 * Writes `files` (relative path → text) into the new folder `outDir/name`. Returns the folder and
 * the files written (relative, sorted).
 * @throws ConfigError when the folder exists and `replace` is false
 */
export function writeExportFolder(outDir: string, name: string, files: Readonly<Record<string, string>>, replace: boolean): { folder: string; files: string[] } {
  const folder = resolve(outDir, name);
  if (existsSync(folder)) {
    if (!replace) throw new ConfigError(`${folder} exists: remove it or pass --replace`);
    rmSync(folder, { recursive: true, force: true });
  }
  for (const [path, text] of Object.entries(files)) {
    const target = join(folder, path);
    mkdirSync(dirname(target), { recursive: true });
    // shell scripts (Harbor's test.sh and solve.sh) are executable, as their formats expect
    writeFileSync(target, text, { mode: path.endsWith(".sh") ? 0o755 : 0o644 });
  }
  return { folder, files: Object.keys(files).map((path) => join(path)).sort() };
}

/**
 * The README of an exported package: what the environment is, how to install and use it, the
 * sandbox warning and the safe option, its levels and provenance, and what the format keeps.
 * @param usage the format's usage example (Python)
 * @param kept one line per field of envforge's package and where it went
 * @param options `safety`: the safety section's lines (default: the program runs in your process, and the
 *   `envforge serve` option); `usageLanguage`: the usage block's fence language (default `python`)
 */
export function packageReadme(environment: ExportedEnvironment, title: string, install: string, usage: string, kept: readonly string[], options: { readonly safety?: readonly string[]; readonly usageLanguage?: string } = {}): string {
  const manifest = environment.package.manifest;
  const safety = options.safety ?? localSafety(environment.id);
  const levels = manifest.levels === undefined ? "One level." : `${manifest.levels.count} levels (0 = easiest): ${manifest.levels.description}`;
  return [
    `# ${manifest.title} (${title})`,
    "",
    manifest.description,
    "",
    `Exported by envforge from environment \`${environment.id}\` (\`${manifest.name}\`). ${levels}`,
    `Reward range ${JSON.stringify(manifest.rewardRange)}, won at a return of ${manifest.passThreshold}, at most ${manifest.maxTurns} turns (${manifest.interaction}).`,
    "",
    "## Install and use",
    "",
    "```",
    install,
    "```",
    "",
    `\`\`\`${options.usageLanguage ?? "python"}`,
    usage,
    "```",
    "",
    ...safety,
    "",
    "## Hint",
    "",
    manifest.hint,
    "",
    "## What this format keeps",
    "",
    ...kept.map((line) => `- ${line}`),
    "",
    "## Provenance",
    "",
    `Origin \`${manifest.provenance.origin}\`${environment.lineage === null ? "" : `, lineage \`${environment.lineage.lineageId}\` generation ${environment.lineage.generation}`}${environment.round === null ? "" : `, admitted in round ${environment.round}`}. ` +
      `${environment.verdicts === null ? "The store kept no admission verdicts for it." : `Admission verdicts: ${environment.verdicts.map((verdict) => `${verdict.gate} ${verdict.status}`).join(", ")}.`} Full record: \`program/provenance.json\`.`,
    "",
  ].join("\n");
}

/** The README's safety section of a package whose program runs in the user's own process. */
function localSafety(id: string): string[] {
  return [
    "## Safety: this package runs the environment program without a sandbox",
    "",
    "Inside envforge every episode runs in a jail (namespaces, a seccomp filter, time and memory limits). Installed",
    "from this package, `program/env.py` runs in your Python process with your permissions. It is the program",
    "envforge admitted (its sha256 is in `program/provenance.json`), but admission tests behaviour, not intent: read it, or",
    "use the safe option. Set `ENVFORGE_SERVER_URL` (and `ENVFORGE_SERVE_TOKEN` when the server has tokens) to a",
    "running `envforge serve` that hosts this environment, and every episode is played there, in its jails, by",
    `content id \`${id}\` (the oracle then is not available).`,
  ];
}

/** A setuptools `pyproject.toml`: the module and its `program/` data, and `dependencies`. */
export function pyproject(distribution: string, description: string, dependencies: readonly string[], packages: Readonly<Record<string, string>>, extra = ""): string {
  const names = Object.keys(packages);
  return [
    "[build-system]",
    'requires = ["setuptools>=61"]',
    'build-backend = "setuptools.build_meta"',
    "",
    "[project]",
    `name = ${JSON.stringify(distribution)}`,
    'version = "1.0.0"',
    `description = ${JSON.stringify(description.slice(0, 200))}`,
    'requires-python = ">=3.10"',
    `dependencies = [${dependencies.map((dependency) => JSON.stringify(dependency)).join(", ")}]`,
    extra,
    "[tool.setuptools]",
    `packages = [${names.map((name) => JSON.stringify(name)).join(", ")}]`,
    `package-dir = { ${Object.entries(packages)
      .map(([name, dir]) => `${JSON.stringify(name)} = ${JSON.stringify(dir)}`)
      .join(", ")} }`,
    "",
    "[tool.setuptools.package-data]",
    ...names.map((name) => `${JSON.stringify(name)} = ["*.py", "*.json", "*.yaml", "*.md"]`),
    "",
  ].join("\n");
}

function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}
