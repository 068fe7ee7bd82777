import { pass, reject, type EnvPackage, type EnvSession, type Verdict } from "../../spec/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { playOracle, winningActions } from "./oracle-gate.js";
import { withSession } from "./probe-episodes.js";

/** Kinds of perturbation applied to the oracle's winning action. */
export type PerturbationKind = "token_changed" | "wrong_type" | "wrong_format" | "extra_text";

/**
 * Perturbed versions of a winning action `answer`: one token changed (the last
 * number incremented, else the last word's last letter shifted), a value of the
 * wrong type (`null` for answers with digits, `0` otherwise), the wrong format
 * (the value base64-encoded), and extra text around the answer that
 * also holds two decoy answers (a scorer that looks for the answer anywhere in
 * the reply accepts it; one that reads one answer does not).
 */
export function perturbAnswer(answer: string): Record<PerturbationKind, string> {
  const changed = changeOneToken(answer, 1);
  return {
    token_changed: changed,
    wrong_type: /\d/.test(answer) ? "null" : "0",
    wrong_format: encodedValue(answer),
    extra_text: `My first thought: ${changed}\nFinal answer: ${answer}\nOn second thought: ${changeOneToken(answer, 2)}`,
  };
}

/** The action with its value (after a short label such as `Answer:`) base64-encoded: the right content in a format no task asks for. */
function encodedValue(answer: string): string {
  const label = /^\s*[A-Za-z][A-Za-z ]{0,20}:\s*/.exec(answer)?.[0] ?? "";
  return label + Buffer.from(answer.slice(label.length), "utf8").toString("base64");
}

function changeOneToken(answer: string, by: number): string {
  const numbers = [...answer.matchAll(/\d+/g)];
  const last = numbers.at(-1);
  if (last?.index !== undefined) {
    const value = String((Number(last[0]) + by) % 10 ** last[0].length).padStart(last[0].length, "0");
    return answer.slice(0, last.index) + value + answer.slice(last.index + last[0].length);
  }
  const letters = [...answer.matchAll(/[a-zA-Z]/g)];
  const letter = letters.at(-1);
  if (letter?.index !== undefined) {
    const code = letter[0].toLowerCase().charCodeAt(0) - 97;
    return answer.slice(0, letter.index) + String.fromCharCode(97 + ((code + by) % 26)) + answer.slice(letter.index + 1);
  }
  return `${answer}${by}`;
}

/**
 * Gate 6, scorer contract: on every seed the oracle wins, its episode is
 * replayed with the last (winning) action perturbed ({@link perturbAnswer});
 * a perturbation that still reaches the pass threshold on every such seed (at
 * least two) shows a scorer that accepts wrong answers. The extra-text
 * perturbation applies to single-turn tasks only (one right answer). Requiring every seed
 * keeps tasks with several right answers (where one changed token can be
 * right by chance) from false rejections. Reason codes:
 * `perturbed_answer_accepted` (evidence: kind, the perturbed action, seeds),
 * `load_failed`.
 */
export function scorerContractGate(): AdmissionGate {
  return { name: "scorer-contract", usesModel: false, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const played = await playOracle(candidate, context);
  if (played.kind !== "ok") return reject("scorer-contract", "load_failed", `env.py or oracle.py failed to load: ${played.message}`, { kind: played.kind });
  const wins = winningActions(played.value);
  if (wins.length < 2) return pass("scorer-contract", { checked: wins.length, note: "fewer than two winning oracle episodes to perturb" });
  const accepted = new Map<PerturbationKind, { seed: number; action: string }[]>();
  const replayed = await withSession(context.sandbox, candidate, false, async (session) => {
    for (const win of wins) {
      for (const [kind, action] of Object.entries(perturbAnswer(win.answer)) as [PerturbationKind, string][]) {
        // in multi-turn tasks the last action is often a move or command that lenient parsers rightly find in extra text
        if (action === win.answer || (kind === "extra_text" && candidate.manifest.interaction !== "single-turn")) continue;
        if (await replayWins(session, candidate, win.seed, [...win.actions.slice(0, -1), action])) {
          accepted.set(kind, [...(accepted.get(kind) ?? []), { seed: win.seed, action }]);
        }
      }
    }
  });
  if (replayed.kind !== "ok") return reject("scorer-contract", "load_failed", `env.py failed to load: ${replayed.message}`, { kind: replayed.kind });
  for (const [kind, seeds] of accepted) {
    if (seeds.length === wins.length) {
      return reject("scorer-contract", "perturbed_answer_accepted", `a ${kind.replace("_", " ")} version of the oracle's answer still wins on all ${wins.length} seeds`, {
        kind,
        example: seeds[0]?.action.slice(0, 300),
        seeds: seeds.map((entry) => entry.seed),
      });
    }
  }
  return pass("scorer-contract", { checked: wins.length, acceptedBySeed: Object.fromEntries([...accepted].map(([kind, seeds]) => [kind, seeds.length])) });
}

async function replayWins(session: EnvSession, candidate: EnvPackage, seed: number, actions: readonly string[]): Promise<boolean> {
  const reset = await session.reset(seed);
  if (reset.kind !== "ok") return false;
  let total = 0;
  for (const action of actions) {
    const step = await session.step(action);
    if (step.kind !== "ok") return false;
    total += step.value.reward;
    if (step.value.terminated || step.value.truncated) break;
  }
  const [low, high] = candidate.manifest.rewardRange;
  return Math.min(high, Math.max(low, total)) >= candidate.manifest.passThreshold;
}
