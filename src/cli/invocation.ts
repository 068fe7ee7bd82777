import { basename, delimiter, dirname, isAbsolute, relative, resolve } from "node:path";

/**
 * The command that runs envforge again the way the user ran it now, for the hints the CLI prints
 * ("Continue with: … run --resume --out DIR"): `envforge` when it was started from a folder on PATH
 * (npm's bin link of a global or linked install), otherwise the path of the script relative to the
 * working folder (`./bin/envforge.js` in a checkout, where no `envforge` is on PATH), or its
 * absolute path when it lies outside the working folder. Single-quoted for the shell when it holds
 * characters a shell would split or expand. Never throws.
 *
 * @param script the script Node runs (defaults to `process.argv[1]`)
 * @param cwd the working folder (defaults to `process.cwd()`)
 * @param pathVariable the PATH variable (defaults to `process.env.PATH`)
 */
export function envforgeCommand(script: string | undefined = process.argv[1], cwd: string = process.cwd(), pathVariable: string = process.env.PATH ?? ""): string {
  if (script === undefined || script === "") return "envforge";
  const absolute = resolve(cwd, script);
  const onPath = pathVariable.split(delimiter).filter((folder) => folder !== "" && isAbsolute(folder)).map((folder) => resolve(folder));
  if (onPath.includes(dirname(absolute)) && basename(absolute) === "envforge") return "envforge";
  const fromCwd = relative(cwd, absolute);
  const shown = fromCwd.startsWith("..") || isAbsolute(fromCwd) ? absolute : `./${fromCwd}`;
  return /^[\w./@%+=:,-]+$/.test(shown) ? shown : `'${shown.replaceAll("'", `'\\''`)}'`;
}
