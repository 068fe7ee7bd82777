import { SCAFFOLD_ENVIRONMENT, SCAFFOLD_MARKER, SCAFFOLD_ORACLE } from "./template.js";

/** The functions a scaffolded design must define at module level. */
export const SCAFFOLD_FUNCTIONS = ["generate", "render", "solve"] as const;

/**
 * Whether a Python source is a scaffolded design: it defines `generate`,
 * `render` and `solve` at module level (column 0) and no class with both
 * `reset` and `step` (that is the free-form format).
 */
export function isScaffoldSource(source: string): boolean {
  if (/^class\s+\w+/m.test(source) && /def\s+reset\s*\(/.test(source) && /def\s+step\s*\(/.test(source)) return false;
  return SCAFFOLD_FUNCTIONS.every((name) => new RegExp(`^def\\s+${name}\\s*\\(`, "m").test(source));
}

/** The functions of {@link SCAFFOLD_FUNCTIONS} a source does not define at module level. */
export function missingScaffoldFunctions(source: string): string[] {
  return SCAFFOLD_FUNCTIONS.filter((name) => !new RegExp(`^def\\s+${name}\\s*\\(`, "m").test(source));
}

/**
 * The `env.py` and `oracle.py` of a scaffolded design: the Designer's code,
 * then the generated environment class ({@link SCAFFOLD_ENVIRONMENT}); the
 * oracle is the template's ({@link SCAFFOLD_ORACLE}).
 *
 * @param authored the Designer's Python block (trailing whitespace is trimmed)
 */
export function expandScaffold(authored: string): { readonly envSource: string; readonly oracleSource: string } {
  return { envSource: `${authored.trimEnd()}\n\n\n${SCAFFOLD_ENVIRONMENT}`, oracleSource: SCAFFOLD_ORACLE };
}

/**
 * The part of an `env.py` its author wrote: for a scaffolded environment the
 * text before {@link SCAFFOLD_MARKER}, else the whole source. Novelty and
 * similarity measures compare this part, so two scaffolded environments are not
 * similar merely by sharing the template.
 */
export function authoredSource(envSource: string): string {
  const at = envSource.indexOf(SCAFFOLD_MARKER);
  return at < 0 ? envSource : envSource.slice(0, at).trimEnd();
}

/** Whether an `oracle.py` is the scaffold's generated oracle (compared as text). */
export function isScaffoldOracle(oracleSource: string): boolean {
  return oracleSource.trim() === SCAFFOLD_ORACLE.trim();
}
