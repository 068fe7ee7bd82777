import {
  EnvforgeError,
  reject,
  type ChatMessage,
  type EditPlan,
  type EnvPackage,
  type ModificationRound,
  type Provenance,
  type Verdict,
} from "../../spec/index.js";
import { buildChild } from "./child-package.js";
import { MODIFIER_GRAMMAR } from "./grammars.js";
import { formatSequence } from "./planning-loop.js";
import type { RoleSettings } from "./reviewer.js";
import { validateChild, type ValidationContext } from "./validations.js";

/** What the modification loop works on. */
export interface ModificationInput {
  readonly parent: EnvPackage;
  readonly plan: EditPlan;
  /** The direction and effort instruction the plan was made under. */
  readonly instruction: string;
  /** Provenance stamped on the child. */
  readonly provenance: Provenance;
}

/** Settings of the modification loop. */
export interface ModificationSettings {
  /** Modifier rounds at most (≥ 1). */
  readonly maxRounds: number;
  readonly modifier: RoleSettings;
  /** Characters of each parent file shown to the Modifier. @default 6000 */
  readonly maxSourceChars?: number;
  /** The change form the prompt asks for ({@link ModifierForm}). @default "search-replace" */
  readonly form?: ModifierForm;
  /** Constrain `search-replace` replies with {@link MODIFIER_GRAMMAR} where the provider enforces grammars (config `evolution.grammar`). @default false */
  readonly grammar?: boolean;
}

/**
 * The change form the Modifier is asked for (config `evolution.modifierForm`).
 * `search-replace`: only search/replace blocks, with one short worked block in
 * the prompt; Qwen2.5-Coder-1.5B's full files ran past the token bound and its
 * unified diffs did not parse (docs/benchmarks/evolution.md, "Evolution with
 * Qwen2.5-Coder-1.5B"). `any`: blocks, unified diffs or full files, the model's
 * choice. Every form is parsed whatever the prompt asked ({@link buildChild}).
 */
export type ModifierForm = "search-replace" | "any";

/** The worked search/replace block of the `search-replace` prompt: generic, so it matches no parent. */
const WORKED_BLOCK = ["<<<<<<< SEARCH env.py", "        self.size = 5", "=======", "        self.size = 9", "        self.rounds = 3", ">>>>>>> REPLACE"].join("\n");

const FORM_INSTRUCTIONS: Readonly<Record<ModifierForm, readonly string[]>> = {
  "search-replace": [
    "Reply with search/replace blocks only, one per place you change. A block copies a few consecutive lines (at most 12) exactly from env.py (or from oracle.py with 'SEARCH oracle.py') and gives the lines that replace them, for example:",
    WORKED_BLOCK,
    "Keep each SEARCH short and unique in its file, and leave out blocks that change nothing. When the rules change, change oracle.py too so it still reaches full reward. Do not repeat whole files.",
  ],
  any: [
    "Reply with ONE of: search/replace blocks (best for a few changes: '<<<<<<< SEARCH env.py', lines copied exactly from the file, '=======', the new lines, '>>>>>>> REPLACE'; use 'SEARCH oracle.py' for the oracle); unified diffs in ```diff blocks (headers --- a/env.py and +++ b/env.py); or the full new files as ```python blocks whose first lines are '# env.py' and '# oracle.py'.",
  ],
};

/** Outcome of {@link runModificationLoop}. */
export interface ModificationResult {
  /** The validated child, or null when no round produced one. */
  readonly child: EnvPackage | null;
  /** The validations of the accepted round (empty when none was accepted). */
  readonly validations: readonly Verdict[];
  readonly rounds: readonly ModificationRound[];
}

/** The Modifier's prompt; `feedback` lists the last round's failures, if any. */
export function modifierPrompt(input: ModificationInput, feedback: string | null, maxSourceChars = 6000, form: ModifierForm = "search-replace"): ChatMessage[] {
  const cut = (source: string) => (source.length > maxSourceChars ? `${source.slice(0, maxSourceChars)}\n# … (cut)` : source);
  const { title, description, hint, skills, scenario, maxTurns } = input.parent.manifest;
  return [
    {
      role: "system",
      content:
        "You are the Modifier. You turn an edit plan into code: a harder child of a Python text environment (standard library only; reset(seed) -> str; step(action) -> (observation, reward, terminated, truncated, info); full success totals reward 1.0) and its oracle act(env, observation) -> str, which may read the environment's attributes and must always reach full reward.",
    },
    {
      role: "user",
      content: [
        `Parent manifest: ${JSON.stringify({ title, description, hint, skills, scenario, maxTurns })}`,
        "# env.py",
        "```python",
        cut(input.parent.envSource),
        "```",
        "# oracle.py",
        "```python",
        cut(input.parent.oracleSource),
        "```",
        "",
        input.instruction,
        `Plan: ${input.plan.summary}`,
        "Target sequence:",
        formatSequence(input.plan.steps),
        ...(feedback === null ? [] : ["", `Your previous child failed validation: ${feedback}`]),
        "",
        ...FORM_INSTRUCTIONS[form],
        'Add a ```json block with the manifest fields that change, e.g. {"title": "...", "description": "...", "hint": "...", "skills": ["..."], "scenario": "...", "maxTurns": 12}.',
      ].join("\n"),
    },
  ];
}

/**
 * Loop 2 of environment evolution, modification: the Modifier produces the
 * child (a patch against the parent or full files); the child is built and
 * the validations run ({@link validateChild}: oracle, negative controls and
 * behaviour change, then the rubric review); failures go
 * back to the Modifier as feedback, up to `maxRounds` rounds. Never throws for
 * untrusted output or model errors (they end up in the rounds).
 */
export async function runModificationLoop(
  input: ModificationInput,
  context: ValidationContext,
  settings: ModificationSettings,
): Promise<ModificationResult> {
  const rounds: ModificationRound[] = [];
  let feedback: string | null = null;
  for (let round = 0; round < settings.maxRounds; round += 1) {
    let completion: string;
    try {
      const options = {
        ...settings.modifier,
        ...(settings.modifier.seed === undefined ? {} : { seed: settings.modifier.seed + round }),
        ...(settings.grammar === true && (settings.form ?? "search-replace") === "search-replace" ? { grammar: MODIFIER_GRAMMAR } : {}),
      };
      completion = (await context.model.generate(modifierPrompt(input, feedback, settings.maxSourceChars, settings.form), options)).text;
    } catch (error) {
      const code = error instanceof EnvforgeError ? error.code : "model_error";
      rounds.push({ completion: "", form: null, verdicts: [reject("modify", "model_error", `${code}: ${(error as Error).message}`)] });
      continue;
    }
    const built = buildChild(input.parent, completion, input.provenance);
    if (!built.ok) {
      rounds.push({ completion, form: null, verdicts: [built.verdict] });
      feedback = built.verdict.message;
      continue;
    }
    const verdicts = await validateChild(built.package, input.parent, input.plan, context);
    rounds.push({ completion, form: built.form, verdicts });
    const failed = verdicts.filter((verdict) => verdict.status === "reject");
    if (failed.length === 0) return { child: built.package, validations: verdicts, rounds };
    feedback = failed.map((verdict) => `[${verdict.gate}] ${verdict.status === "reject" ? verdict.message : ""}`).join(" ");
  }
  return { child: null, validations: [], rounds };
}
