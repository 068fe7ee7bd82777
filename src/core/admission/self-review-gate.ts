import { canonicalJson, pass, reject, type ChatMessage, type EnvPackage, type Verdict } from "../../spec/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";

/** What one review concluded; `unparseable` when the reply holds no verdict line. */
export type ReviewDecision = "accept" | "reject" | "unparseable";

/** The decision of a review reply: the last `VERDICT: ACCEPT|REJECT` line (case-insensitive). */
export function parseReview(text: string): ReviewDecision {
  const matches = [...text.matchAll(/verdict\s*[:=-]\s*\**\s*(accept|reject)/gi)];
  const last = matches.at(-1)?.[1]?.toLowerCase();
  return last === "accept" || last === "reject" ? last : "unparseable";
}

/** The review chat: the rubric as the system message, the package (without provenance) as the user message. */
export function reviewMessages(candidate: EnvPackage, rubric: string): ChatMessage[] {
  const { provenance: _provenance, ...task } = candidate.manifest;
  return [
    { role: "system", content: `You review reinforcement-learning environments written by another model.\n\n${rubric}` },
    {
      role: "user",
      content: `env.json:\n${canonicalJson(task)}\n\nenv.py:\n${candidate.envSource}\n\noracle.py:\n${candidate.oracleSource}`,
    },
  ];
}

/**
 * Gate 8, self-review (EvoEnv: K = 3 semantic reviews, any reject rejects):
 * the language model reviews the package `reviews` times against the rubric
 * (different sampling seeds). Replies without a verdict line abstain; when no
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
    });
    replies.push({ decision: parseReview(generation.text), text: generation.text.slice(0, 1000) });
  }
  const evidence = { reviews: replies };
  const rejected = replies.filter((reply) => reply.decision === "reject").length;
  if (rejected > 0) return reject("self-review", "review_rejected", `${rejected} of ${replies.length} reviews rejected the environment`, evidence);
  if (replies.every((reply) => reply.decision === "unparseable")) {
    return reject("self-review", "review_unparseable", `none of ${replies.length} reviews ended with a VERDICT line`, evidence);
  }
  return pass("self-review", evidence);
}
