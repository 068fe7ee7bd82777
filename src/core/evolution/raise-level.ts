import { levelCount, type EnvPackage, type Provenance } from "../../spec/index.js";
import { raisedLevelSource } from "../admission/index.js";

/**
 * The "raise the level" child of a levelled family (direction `level`): the
 * parent's program with `reset(seed, level)` shifted one level up, so the
 * child's level 0 is the parent's level 1 and its levels are the parent's
 * levels 1 .. count − 1 (a child of one declared level, the parent's top
 * level, when the parent has two). The oracle and the rest of the manifest are the
 * parent's. No model call: the child is exactly as valid as the parent's
 * higher levels, and admission checks it like any other child.
 *
 * @returns null when the parent has fewer than two levels (nothing to raise)
 */
export function raisedLevelChild(parent: EnvPackage, provenance: Provenance): EnvPackage | null {
  const count = levelCount(parent.manifest);
  if (parent.manifest.levels === undefined || count < 2) return null;
  const { levels, ...rest } = parent.manifest;
  const description = `${levels.description} (level 0 here is the parent's level 1)`.slice(0, 300);
  return {
    // a child of one level keeps its levels block, so it is still reset as reset(seed, level) (the shift's signature)
    manifest: { ...rest, levels: { count: count - 1, description }, provenance },
    envSource: raisedLevelSource(parent.envSource, 1),
    oracleSource: parent.oracleSource,
  };
}
