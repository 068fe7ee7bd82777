import { basename, delimiter, dirname, isAbsolute, relative, resolve, sep } from "node:path";
import { shellWord } from "../support/shell-word.js";

/** Where the CLI was started from, as {@link envforgeCommand} reads it (defaults: this process). */
export interface Invocation {
  /** The script Node runs (`process.argv[1]`). */
  readonly script?: string | undefined;
  /** The working folder (`process.cwd()`). */
  readonly cwd?: string;
  /** The PATH variable. */
  readonly pathVariable?: string;
  /** `npm_lifecycle_event`: the npm script that started the process (`npm run envforge -- …`), if any. */
  readonly npmScript?: string | undefined;
}

/**
 * The command that runs envforge again the way the user ran it now, for the hints the CLI prints
 * ("Continue with: … run --resume --out DIR"):
 * - `npm run envforge --` when npm's script `envforge` started it (npm runs it from the package root);
 * - `npx envforge` when the script is a project's `node_modules/.bin/envforge` (npx puts that folder
 *   on PATH only for its own child);
 * - `envforge` when it was started from a folder on PATH (npm's bin link of a global install);
 * - otherwise the script's path relative to the working folder (`./bin/envforge.js` in a checkout,
 *   where no `envforge` is on PATH), or its absolute path when it lies outside the working folder.
 * Quoted for the shell where needed ({@link shellWord}). Never throws.
 */
export function envforgeCommand(invocation: Invocation = {}): string {
  const script = "script" in invocation ? invocation.script : process.argv[1];
  const cwd = invocation.cwd ?? process.cwd();
  const pathVariable = invocation.pathVariable ?? process.env.PATH ?? "";
  const npmScript = "npmScript" in invocation ? invocation.npmScript : process.env.npm_lifecycle_event;
  if (npmScript === "envforge") return "npm run envforge --";
  if (script === undefined || script === "") return "envforge";
  const absolute = resolve(cwd, script);
  if (basename(absolute) === "envforge" && dirname(absolute).endsWith(`${sep}node_modules${sep}.bin`)) return "npx envforge";
  const onPath = pathVariable.split(delimiter).filter((folder) => folder !== "" && isAbsolute(folder)).map((folder) => resolve(folder));
  if (onPath.includes(dirname(absolute)) && basename(absolute) === "envforge") return "envforge";
  const fromCwd = relative(cwd, absolute);
  return shellWord(fromCwd.startsWith("..") || isAbsolute(fromCwd) ? absolute : `./${fromCwd}`);
}


/** The hint's command that continues a stopped `command` (`run` or `evolve`) in `outDir`: absolute and quoted, so it works from any folder. */
export function resumeCommand(command: "run" | "evolve", outDir: string, invocation: Invocation = {}): string {
  return `${envforgeCommand(invocation)} ${command} --resume --out ${shellWord(resolve(invocation.cwd ?? process.cwd(), outDir))}`;
}
