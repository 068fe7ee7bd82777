/** The two roles of the shared policy. */
export type Role = "solver" | "designer";

/**
 * What a training sample's advantage group is made of. Roles never share a
 * group: the role is the first component of every group key.
 * - Solver (SPADE): the plays of one environment under one hint condition at one policy version.
 * - Designer: the designs answering one prompt, or (configurable) one skill group.
 */
export type GroupKey =
  | {
      readonly role: "solver";
      /** Content id of the environment played. */
      readonly environmentId: string;
      /** Whether the plays saw the hint. */
      readonly hint: boolean;
      /** Policy version that sampled the plays. */
      readonly policyVersion: number;
    }
  | {
      readonly role: "designer";
      /** Hash of the Designer prompt the design answers. */
      readonly promptHash: string;
      /** Skill group of the design (e.g. its first skill tag, or a cluster id). */
      readonly skillGroup: string;
    };

/** How Designer samples are grouped: by `prompt` or by `skill` group. */
export type DesignerGroupBy = "prompt" | "skill";

/**
 * The canonical string of a group key: a JSON array led by the role, so keys of
 * different roles can never be equal and no separator can collide.
 *
 * @param key the sample's group key
 * @param designerGroupBy which Designer field forms the group. @default "prompt"
 */
export function groupKeyString(key: GroupKey, designerGroupBy: DesignerGroupBy = "prompt"): string {
  if (key.role === "solver") return JSON.stringify(["solver", key.environmentId, key.hint ? "hint" : "no-hint", key.policyVersion]);
  return JSON.stringify(["designer", designerGroupBy, designerGroupBy === "prompt" ? key.promptHash : key.skillGroup]);
}
