import type { EvolutionDirection, ScenarioSkillStep } from "../../spec/index.js";
import type { EditSpan } from "./directions.js";
import { stepJson } from "./sequence.js";

/**
 * GBNF grammars (llama.cpp's grammar format) of the evolution roles' replies, used when
 * `evolution.grammar` is on and the provider enforces grammars (the embedded llama.cpp engine,
 * vLLM, SGLang); other providers ignore them, and every reply is parsed the same way either way.
 * @module
 */

/**
 * GBNF grammar of a Modifier reply in the `search-replace` form: one
 * to four search/replace blocks, each `<<<<<<< SEARCH env.py` (or `oracle.py`), 1 to 12 lines
 * copied from the file, `=======`, 0 to 40 new lines, `>>>>>>> REPLACE` (with six blocks of up to
 * 60 lines, 1 of 6 replies of the 1.5B ran into the 1,024-token bound inside a block); then, optionally, one
 * fenced JSON object with the manifest changes. Qwen2.5-Coder-1.5B, asked for blocks without it,
 * answered with the manifest JSON alone (`no_change_found`) or rewrote the whole env.py until the
 * token bound (a syntax error at the cut); the grammar leaves it no room for either, and its short
 * SEARCH sections must be copied, not remembered. Lines inside a block cannot start with `<`, `=`
 * or `>` (the markers), which no line of a Python environment needs. Used only in the
 * `search-replace` form; replies are parsed by {@link buildChild} whatever the form.
 */
export const MODIFIER_GRAMMAR = String.raw`root ::= block ("\n" block){0,3} manifest?
block ::= "<<<<<<< SEARCH " file "\n" line{1,12} "=======\n" line{0,40} ">>>>>>> REPLACE\n"
file ::= "env.py" | "oracle.py"
line ::= [^\n<=>] [^\n]* "\n" | "\n"
manifest ::= "\n` + "```" + String.raw`json\n{" [^` + "`" + String.raw`]* "}\n` + "```" + String.raw`\n"
`;

/** What {@link planGrammar} needs: the parent's sequence, the direction and the edit span. */
export interface PlanShape {
  readonly sequence: readonly ScenarioSkillStep[];
  /** `level` never plans (its child is the parent one level up); its grammar keeps every step. */
  readonly direction: EvolutionDirection;
  readonly span: EditSpan;
}

/** Most new steps a LENGTH plan may add beyond the span's own. */
export const MAX_ADDED_STEPS = 8;

/**
 * GBNF grammar of a Proposer plan for one direction and span: exactly the JSON object
 * {@link parsePlan} reads, `{"summary": "…", "steps": [{"scenario": "…", "skill": "…"}, …]}`
 * (summary 1–600 characters; new labels 1–80 characters, `MAX_LABEL_CHARS`, without `"`, `\` or
 * `|`), with the structure the plan checks (`checkPlan`) demand written in: the steps outside the
 * span are the parent's, verbatim; SCENARIO keeps every skill and writes the span's scenarios,
 * SKILL keeps every scenario and writes the span's skills; LENGTH writes between
 * `span length + 1` and `span length + MAX_ADDED_STEPS` steps in place of the span. So the model
 * writes only what the direction asks of it. Qwen2.5-Coder-1.5B's plans without it broke those
 * rules in 12 of 19 rounds (`plan_wrong_length`, `plan_changed_kept`, `plan_not_longer`,
 * `plan_outside_span`, `plan_unchanged`) and copied "… | skill: …" into labels
 * (docs/benchmarks/evolution.md, "Evolution with Qwen2.5-Coder-1.5B"). `plan_unchanged` stays possible (a
 * new label may repeat the old one) and is still checked.
 */
export function planGrammar(shape: PlanShape): string {
  const { sequence, direction, span } = shape;
  const fixed = (step: ScenarioSkillStep) => gbnfLiteral(stepJson(step));
  const scenarioFree = (step: ScenarioSkillStep) => `${gbnfLiteral('{"scenario": "')} label ${gbnfLiteral(`", "skill": ${JSON.stringify(step.skill)}}`)}`;
  const skillFree = (step: ScenarioSkillStep) => `${gbnfLiteral(`{"scenario": ${JSON.stringify(step.scenario)}, "skill": "`)} label ${gbnfLiteral('"}')}`;
  const parts: string[] = [];
  if (direction === "length") {
    for (const step of sequence.slice(0, span.start)) parts.push(fixed(step));
    const least = span.end - span.start + 1;
    parts.push(`newstep ${`(", " newstep)`}{${least - 1},${least - 1 + MAX_ADDED_STEPS}}`);
    for (const step of sequence.slice(span.end)) parts.push(fixed(step));
  } else {
    sequence.forEach((step, index) => {
      const inside = index >= span.start && index < span.end;
      parts.push(!inside || direction === "level" ? fixed(step) : direction === "scenario" ? scenarioFree(step) : skillFree(step));
    });
  }
  return [
    `root ::= ${gbnfLiteral('{"summary": "')} char{1,600} ${gbnfLiteral('", "steps": [')} ${parts.join(` ${gbnfLiteral(", ")} `)} ${gbnfLiteral("]}")}`,
    String.raw`newstep ::= "{\"scenario\": \"" label "\", \"skill\": \"" label "\"}"`,
    String.raw`label ::= [^"\\|\x00-\x1f\x7f\u2028\u2029]{1,80}`,
    String.raw`char ::= [^"\\\x00-\x1f\x7f\u2028\u2029]`,
    "",
  ].join("\n");
}

/** A GBNF string literal that matches `text` exactly. */
function gbnfLiteral(text: string): string {
  return `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\r/g, "\\r").replace(/\t/g, "\\t")}"`;
}

/**
 * GBNF grammar of a rubric review with `rubrics` rubrics: `{"checks": [{"rubric": 1, "why": "…",
 * "holds": true|false}, …]}`, one check per rubric in order, each reason (1–200 characters) before
 * its decision, so the verdict is computed by program from the checks ({@link parseRubricReview})
 * rather than stated by the model before it has looked. Qwen2.5-Coder-1.5B's free reviews rejected
 * sound plans with reasons that contradicted them ("replace it with a rarer skill such as …", naming
 * the plan's own skill), and 1 of the 9 reviews of one run held no verdict (docs/benchmarks/evolution.md, "Evolution with
 * Qwen2.5-Coder-1.5B").
 */
export function reviewGrammar(rubrics: number): string {
  const checks = Array.from({ length: rubrics }, (_, index) => `${gbnfLiteral(`{"rubric": ${index + 1}, "why": "`)} why ${gbnfLiteral('", "holds": ')} ("true" | "false") "}"`);
  return [
    `root ::= ${gbnfLiteral('{"checks": [')} ${checks.join(` ${gbnfLiteral(", ")} `)} ${gbnfLiteral("]}")}`,
    String.raw`why ::= [^"\\\x00-\x1f\x7f\u2028\u2029]{1,200}`,
    "",
  ].join("\n");
}
