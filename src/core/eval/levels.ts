import { checkLevel, ConfigError, levelCount, type EnvManifest } from "../../spec/index.js";

/** The levels an evaluation plays environments at: `all` of each environment's levels, or a list. */
export type LevelSelection = "all" | readonly number[];

/**
 * Parses `eval --levels`: `all`, or comma-separated integers (`0,2,5`; spaces allowed, duplicates
 * dropped, sorted). Negative integers parse (they are out of every environment's range, which
 * {@link levelsOf} reports naming the range).
 *
 * @throws ConfigError for an empty list or an entry that is not an integer
 */
export function parseLevelSelection(text: string): LevelSelection {
  if (text.trim() === "all") return "all";
  const entries = text.split(",").map((entry) => entry.trim());
  const bad = entries.find((entry) => !/^-?\d{1,6}$/.test(entry));
  if (bad !== undefined) throw new ConfigError(`--levels ${JSON.stringify(text)}: ${bad === "" ? "an empty entry" : JSON.stringify(bad)} is not a level; give comma-separated integers (e.g. 0,2,5) or all`);
  return [...new Set(entries.map(Number))].sort((a, b) => a - b);
}

/** The levels one environment is played at, and the listed levels it has not (one-level families only). */
export interface EnvironmentLevels {
  readonly levels: readonly number[];
  /** Listed levels above 0 that a family of one level does not have: skipped for it, not an error. */
  readonly skipped: readonly number[];
}

/**
 * The levels `manifest`'s environment is played at under `selection`. `all`: each of its levels
 * (0 alone for a family of one level). A list: a levelled family must have every listed level; a
 * family of one level (no `levels` in its manifest) plays level 0 when the list holds it, and
 * skips the listed levels above 0, so that one list can cover a suite whose environments declare
 * different ranges only where they are levelled.
 *
 * @throws LevelOutOfRangeError naming the range, for a listed level a levelled family lacks, or a negative one
 */
export function levelsOf(manifest: Pick<EnvManifest, "levels" | "name">, selection: LevelSelection): EnvironmentLevels {
  if (selection === "all") return { levels: Array.from({ length: levelCount(manifest) }, (_, level) => level), skipped: [] };
  if (manifest.levels === undefined) {
    for (const level of selection) if (level < 0) checkLevel(manifest, level);
    return { levels: selection.filter((level) => level === 0), skipped: selection.filter((level) => level > 0) };
  }
  for (const level of selection) checkLevel(manifest, level);
  return { levels: selection, skipped: [] };
}
