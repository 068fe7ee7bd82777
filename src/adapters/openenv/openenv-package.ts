import type { EnvPackage, OpenEnvTask } from "../../spec/index.js";

/** Default steps per episode of an OpenEnv package (openenv.yaml declares none). */
export const DEFAULT_OPENENV_TURNS = 30;

/** The hint of an OpenEnv package: OpenEnv has none, so the with-hint plays see this line. */
export const OPENENV_NO_HINT = "(this environment has no hint)";

/**
 * An OpenEnv package as an {@link EnvPackage} (see `EnvPackage.openenv`): a multi-turn manifest of
 * `maxTurns` steps whose reward range is openenv.yaml's `validation.reward.range`, won at its top,
 * skills from its tags, no hint ({@link OPENENV_NO_HINT}); `envSource` is the environment module
 * and `oracleSource` envforge's optional `oracle.py`, so novelty and self-review read the code, and
 * the content id covers the whole folder.
 */
export function openEnvPackage(task: OpenEnvTask, maxTurns = DEFAULT_OPENENV_TURNS): EnvPackage {
  const name = task.name.toLowerCase().replace(/[^a-z0-9-]+/g, "-").replace(/^-+|-+$/g, "").slice(0, 64) || "openenv-environment";
  return {
    manifest: {
      schemaVersion: 1,
      name,
      title: task.name.slice(0, 200),
      description: task.description.trim() === "" ? `OpenEnv environment ${task.name} (${task.environmentClass})` : task.description,
      interaction: "multi-turn",
      maxTurns,
      rewardRange: [task.rewardRange[0], task.rewardRange[1]],
      passThreshold: task.rewardRange[1],
      hint: OPENENV_NO_HINT,
      skills: task.tags.length > 0 ? [...task.tags] : ["openenv"],
      scenario: "OpenEnv environment",
      difficulty: {},
      provenance: { origin: "seed", parentId: null, generation: 0, designerModel: null, promptHash: null, corpusDocumentIds: [], createdAt: new Date(0).toISOString() },
    },
    envSource: task.source,
    oracleSource: task.oracle,
    openenv: task,
  };
}
