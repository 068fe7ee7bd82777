import { canonicalJson, pass, reject, type ChatMessage, type EnvPackage, type Verdict } from "../../spec/index.js";
import { authoredSource, isScaffoldOracle } from "../scaffold/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";

/** What one review concluded; `unparseable` when the reply holds no verdict line. */
export type ReviewDecision = "accept" | "reject" | "unparseable";

/**
 * The decision of a review reply: the last `VERDICT: ACCEPT|REJECT` (case-insensitive, bold
 * allowed), else a last line that is the bare word `ACCEPT` or `REJECT` (Qwen2.5-Coder-0.5B
 * answers the rubric with the word alone; measured on `envforge bench designer` with every gate).
 */
export function parseReview(text: string): ReviewDecision {
  const matches = [...text.matchAll(/verdict\s*[:=-]\s*\**\s*(accept|reject)/gi)];
  const last = matches.at(-1)?.[1]?.toLowerCase() ?? /^[\s*_`"'.]*(accept|reject)[\s*_`"'.!]*$/i.exec(text.trimEnd().split("\n").at(-1) ?? "")?.[1]?.toLowerCase();
  return last === "accept" || last === "reject" ? last : "unparseable";
}

/**
 * GBNF grammar of a review reply (llama.cpp's grammar format): at most five lines of at most 120
 * characters (one per failed criterion of the five in the shipped rubric), then exactly `VERDICT: ACCEPT` or `VERDICT: REJECT`, so a reviewer on a
 * provider that enforces grammars (the embedded llama.cpp engine, vLLM, SGLang) cannot leave the
 * verdict out or run past the token bound before it. Used when `admission.reviewGrammar` is on.
 */
export const REVIEW_GRAMMAR = String.raw`root ::= line{0,5} "VERDICT: " ("ACCEPT" | "REJECT")
line ::= [^\n\x00-\x1f]{1,120} "\n"
`;

/** What envforge's scaffold does with a scaffolded package's functions, told to its reviewer instead of showing the template. */
const SCAFFOLD_NOTE = `envforge wraps these functions in a standard environment: reset(seed) draws instance = generate(rng) with rng = random.Random(seed) and shows render(instance) to the agent, who never sees the code or the instance; a reply earns reward 1 when it equals solve(instance) (after trimming an "Answer:" label, quotes and brackets), else 0. The oracle replies solve(instance).`;

/**
 * The review chat: the rubric as the system message, the package (without
 * provenance) as the user message. A scaffolded package (its oracle is the
 * scaffold's) is shown as the Designer's own functions and a note on what the
 * scaffold does with them, not the generated class and oracle: a small reviewer
 * shown the template reviews (or echoes) envforge's code instead of the task.
 */
export function reviewMessages(candidate: EnvPackage, rubric: string): ChatMessage[] {
  const { provenance: _provenance, ...task } = candidate.manifest;
  const program = isScaffoldOracle(candidate.oracleSource)
    ? `task.py:\n${authoredSource(candidate.envSource)}\n\n${SCAFFOLD_NOTE}`
    : `env.py:\n${candidate.envSource}\n\noracle.py:\n${candidate.oracleSource}`;
  return [
    { role: "system", content: `You review reinforcement-learning environments written by another model.\n\n${rubric}` },
    { role: "user", content: `env.json:\n${canonicalJson(task)}\n\n${program}` },
  ];
}

/**
 * Gate 8, self-review (EvoEnv: K = 3 semantic reviews, any reject rejects):
 * the language model reviews the package `reviews` times against the rubric
 * (different sampling seeds); `reviewRejections` rejecting reviews reject it
 * (default 1: any). Replies without a verdict line abstain; when no
 * reply has one, the candidate is rejected as unreviewable. Reason codes:
 * `review_rejected` (evidence: every reply, truncated), `review_unparseable`,
 * `model_missing`. Model errors propagate (the pipeline records `gate_error`).
 */
export function selfReviewGate(): AdmissionGate {
  return { name: "self-review", usesModel: true, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const { model, rubric } = context;
  if (model === undefined || rubric === undefined) return reject("self-review", "model_missing", "self-review needs a language model and a rubric");
  const messages = reviewMessages(candidate, rubric);
  const replies: { decision: ReviewDecision; text: string }[] = [];
  for (let review = 0; review < context.settings.reviews; review += 1) {
    const generation = await model.generate(messages, {
      maxTokens: context.settings.reviewMaxTokens,
      temperature: context.settings.reviewTemperature,
      seed: review,
      ...(context.settings.reviewGrammar ? { grammar: REVIEW_GRAMMAR } : {}),
    });
    replies.push({ decision: parseReview(generation.text), text: generation.text.slice(0, 1000) });
  }
  const evidence = { reviews: replies };
  const rejected = replies.filter((reply) => reply.decision === "reject").length;
  if (rejected >= context.settings.reviewRejections) return reject("self-review", "review_rejected", `${rejected} of ${replies.length} reviews rejected the environment`, evidence);
  if (replies.every((reply) => reply.decision === "unparseable")) {
    return reject("self-review", "review_unparseable", `none of ${replies.length} reviews ended with a VERDICT line`, evidence);
  }
  return pass("self-review", evidence);
}
