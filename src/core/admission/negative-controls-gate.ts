import { pass, reject, type EnvPackage, type EnvSession, type Episode, type Verdict, type VerdictReason } from "../../spec/index.js";
import { doNothingPolicy, parseToolReply, randomPolicy, randomToolCallPolicy, seededRandom, type Policy } from "../rollout/index.js";
import type { AdmissionContext, AdmissionGate } from "./gate.js";
import { playOracle, winningActions } from "./oracle-gate.js";
import { binomialUpperTail } from "../../support/binomial.js";
import { episodeSummary, invalidStepResult, playSeeds, rewardRangeViolation, scriptedPolicy, seedRange, spreadSeeds, withSession } from "./probe-episodes.js";

/** The planted invalid action: nothing a well-formed task can accept as an answer. */
export const INVALID_ACTION = "<<not a valid action>>";

/**
 * The negative-control agents, each with the reason code its win produces. The do-nothing and
 * invalid-action agents must never win; the random agent is judged by a binomial test (it may win
 * at chance, `admission.randomWinRate`) on more seeds.
 */
type Control = { readonly reason: VerdictReason<"negative-controls">; readonly policy: (seed: number) => Policy; readonly byTest?: true };

const CONTROLS: readonly Control[] = [
  { reason: "empty_solution_passes", policy: () => doNothingPolicy },
  { reason: "random_agent_passes", policy: (seed) => randomPolicy(seededRandom(7919 * (seed + 1))), byTest: true },
  { reason: "invalid_action_passes", policy: () => scriptedPolicy("invalid-action", [INVALID_ACTION]) },
];

/** The controls a candidate gets: {@link CONTROLS}, and for a tool environment a seeded agent making schema-valid random tool calls (judged like the random agent). */
function controlsOf(candidate: EnvPackage): readonly Control[] {
  const tools = candidate.manifest.tools;
  if (tools === undefined) return CONTROLS;
  return [...CONTROLS, { reason: "random_tool_calls_pass", policy: (seed) => randomToolCallPolicy(tools, seededRandom(104_729 * (seed + 1))), byTest: true }];
}

/** Fewest seeds (0..n−1) the fixed-reply control needs: with fewer, the oracle's replies say too little about which answers are common. */
export const FIXED_REPLY_MIN_SEEDS = 5;

/** Extra seeds, spread over the training range, on which a fixed reply is also played. */
export const FIXED_REPLY_SPREAD_SEEDS = 8;

/** How many of the oracle's most common winning replies are tried as fixed replies. */
export const FIXED_REPLY_CANDIDATES = 2;

/** The fixed-reply control: rejects only when one reply wins on every seed it plays (unlike the others, which must never win). */
const FIXED_REPLY = { reason: "fixed_reply_passes" } as const;

/** The tool-free control of a tool environment: the oracle's final messages without its tool calls, on each seed where it called a tool; must never win. */
const TOOL_FREE = { reason: "answer_without_tools" } as const;

/**
 * For each oracle win that called a tool, the seed and the oracle's final messages (its replies
 * that are not tool calls), in order: what a Solver that skipped every call would send. Empty for a
 * text environment.
 */
function toolFreeReplies(candidate: EnvPackage, wins: readonly { seed: number; actions: readonly string[] }[]): { seed: number; actions: string[] }[] {
  const tools = candidate.manifest.tools;
  if (tools === undefined) return [];
  return wins.flatMap((win) => {
    const finals = win.actions.filter((action) => parseToolReply(action, tools).kind === "final");
    return finals.length < win.actions.length ? [{ seed: win.seed, actions: finals }] : [];
  });
}

/**
 * Gate 5, negative controls (invalid-test; environment evolution's modification
 * loop): a do-nothing agent and an agent that only sends a planted invalid action
 * stay below the pass threshold on every seed; a seeded random agent, played on
 * the seeds and {@link FIXED_REPLY_SPREAD_SEEDS} spread seeds, wins no more often
 * than chance allows (rejected when P(X ≥ wins) < `admission.controlAlpha` for
 * X ~ Binomial(episodes, `admission.randomWinRate`), a one-sided exact test: a
 * yes/no task's chance wins are no defect, a task that takes any integer is); and
 * no fixed reply wins every seed (the rubric's "a fixed reply cannot win"; a
 * Qwen2.5-Coder-0.5B design whose `solve` answered 1 for every instance passed
 * every other mechanical gate). The fixed replies are the oracle's
 * {@link FIXED_REPLY_CANDIDATES} most common winning action sequences over seeds
 * 0..n−1, each replayed as a script on those seeds and on
 * {@link FIXED_REPLY_SPREAD_SEEDS} spread seeds (16 in all by default) until its
 * first loss (a sound task costs one or two episodes per reply); the control runs when n ≥ {@link FIXED_REPLY_MIN_SEEDS}. A task whose most common
 * answer has probability p is rejected by chance with probability about p¹⁶
 * (p = 0.5: 2·10⁻⁵; p = 0.77, "is N prime" for N ≤ 200: 1.5 %), and a task that a
 * constant wins with p = 0.97 is caught 61 % of the time. Not caught: a fixed
 * sweep of every answer in a multi-turn task whose oracle answers at once. Every
 * step reward and each episode's running return must stay inside `rewardRange`. Reason codes:
 * `empty_solution_passes`, `random_agent_passes`, `invalid_action_passes`,
 * `fixed_reply_passes`, `random_tool_calls_pass` (tool environments: a seeded agent making
 * schema-valid random tool calls, {@link randomToolCallPolicy}, judged by the same binomial test),
 * `answer_without_tools` (tool environments: on a seed where the oracle called a tool, its final
 * messages alone, replayed without the calls, win; or the oracle wins without calling any tool:
 * the reward does not need the tools),
 * `reward_out_of_range`, `load_failed`.
 */
export function negativeControlsGate(): AdmissionGate {
  return { name: "negative-controls", usesModel: false, perLevel: true, check };
}

async function check(candidate: EnvPackage, context: AdmissionContext): Promise<Verdict> {
  const seeds = seedRange(context.settings.seeds);
  const oracle = seeds.length >= FIXED_REPLY_MIN_SEEDS ? await playOracle(candidate, context) : null;
  const fixedReplies = oracle?.kind === "ok" ? mostCommonReplies(winningActions(oracle.value).map((win) => win.actions), FIXED_REPLY_CANDIDATES) : [];
  const fixedSeeds = [...seeds, ...spreadSeeds(FIXED_REPLY_SPREAD_SEEDS)];
  const oracleWins = oracle?.kind === "ok" ? winningActions(oracle.value) : [];
  const toolFree = toolFreeReplies(candidate, oracleWins);
  // a tool environment whose oracle wins without a single call: nothing else to replay, the reward does not need the tools
  if (candidate.manifest.tools !== undefined && oracleWins.length > 0 && toolFree.length === 0) {
    return reject("negative-controls", "answer_without_tools", `the oracle won ${oracleWins.length} seed(s) without calling any of the environment's tools: the reward does not need them`, { seeds: oracleWins.map((win) => win.seed), actions: oracleWins[0]?.actions.slice(0, 3) });
  }
  // one session for every control; a failure ends that control's episodes (a loss), and the executable gate already rejects crashes
  const played = await withSession(context.sandbox, candidate, false, async (session) => {
    const results: { control: Control | typeof FIXED_REPLY | typeof TOOL_FREE; episodes: Episode[]; actions?: readonly string[] }[] = [];
    for (const control of controlsOf(candidate)) results.push({ control, episodes: await playSeeds(session, candidate, control.byTest ? fixedSeeds : seeds, control.policy) });
    for (const actions of fixedReplies) results.push({ control: FIXED_REPLY, actions, episodes: await playUntilLost(session, candidate, fixedSeeds, actions) });
    for (const { seed, actions } of toolFree) results.push({ control: TOOL_FREE, actions, episodes: await playSeeds(session, candidate, [seed], () => scriptedPolicy("tool-free", actions.length > 0 ? actions : [""])) });
    return results;
  });
  if (played.kind !== "ok") return reject("negative-controls", "load_failed", `env.py failed to load: ${played.message}`, { kind: played.kind });
  let randomAgent: { wins: number; episodes: number; pValue: number } | null = null;
  for (const { control, episodes, actions } of played.value) {
    const outOfRange = rewardRangeViolation("negative-controls", episodes, candidate) ?? invalidStepResult("negative-controls", episodes);
    if (outOfRange !== null) return outOfRange;
    const won = episodes.filter((episode) => episode.won);
    if (control === FIXED_REPLY) {
      if (episodes.length === fixedSeeds.length && won.length === episodes.length) {
        const what = (actions ?? []).length > 1 ? "fixed sequence of actions" : "fixed reply";
        const shown = (actions ?? []).map((action) => JSON.stringify(action.slice(0, 100))).join(", ");
        return reject("negative-controls", FIXED_REPLY.reason, `one ${what} (${shown}, the oracle's most common) wins on every one of ${episodes.length} seeds: the answer does not depend on the instance`, {
          episodes: episodeSummary(episodes),
          actions: actions?.map((action) => action.slice(0, 100)),
        });
      }
      continue;
    }
    if (control === TOOL_FREE) {
      if (won.length > 0) {
        return reject("negative-controls", TOOL_FREE.reason, `the oracle's final answer alone, without its tool calls, wins seed ${won[0]?.seed}: the environment declares tools the reward does not need`, {
          episodes: episodeSummary(episodes),
          actions: actions?.map((action) => action.slice(0, 100)),
        });
      }
      continue;
    }
    if ("byTest" in control && control.byTest) {
      const pValue = binomialUpperTail(won.length, episodes.length, context.settings.randomWinRate);
      if (control.reason === "random_agent_passes") randomAgent = { wins: won.length, episodes: episodes.length, pValue };
      if (pValue < context.settings.controlAlpha) {
        const rate = `${Math.round(context.settings.randomWinRate * 1000) / 10} %`;
        const who = control.reason === "random_agent_passes" ? "the random agent" : "an agent making schema-valid random tool calls";
        return reject("negative-controls", control.reason, `${who} wins ${won.length} of ${episodes.length} seeds; a sound task lets it win at most ${rate} of its episodes (admission.randomWinRate), and ${won.length} or more wins have probability ${pValue.toPrecision(2)} under that rate`, {
          episodes: episodeSummary(episodes),
          pValue,
          actions: won[0]?.turns.map((turn) => turn.action.slice(0, 100)),
        });
      }
      continue;
    }
    if (won.length > 0) {
      return reject("negative-controls", control.reason, `the ${control.reason.replace(/_passes$/, "").replace(/_/g, " ")} control wins on ${won.length} of ${episodes.length} seeds`, {
        episodes: episodeSummary(episodes),
        actions: won[0]?.turns.map((turn) => turn.action.slice(0, 100)),
      });
    }
  }
  const fixedNote = fixedReplies.length === 0 ? { fixedReply: seeds.length < FIXED_REPLY_MIN_SEEDS ? `not played: fewer than ${FIXED_REPLY_MIN_SEEDS} seeds` : "not played: the oracle won no seed" } : { fixedReplies: fixedReplies.length, fixedReplySeeds: fixedSeeds.length };
  return pass("negative-controls", {
    seeds: seeds.length,
    ...(randomAgent === null ? {} : { randomAgent }),
    controls: [...controlsOf(candidate), ...(fixedReplies.length === 0 ? [] : [FIXED_REPLY]), ...(toolFree.length === 0 ? [] : [TOOL_FREE])].map((control) => control.reason),
    ...fixedNote,
    ...(candidate.manifest.tools === undefined ? {} : { toolFreeSeeds: toolFree.length }),
  });
}

/**
 * Plays the fixed reply `actions` seed by seed and stops at its first loss: only a reply that wins
 * every seed rejects, so a sound task usually costs one or two episodes, not all of them.
 */
async function playUntilLost(session: EnvSession, candidate: EnvPackage, seeds: readonly number[], actions: readonly string[]): Promise<Episode[]> {
  const episodes: Episode[] = [];
  for (const seed of seeds) {
    const [episode] = await playSeeds(session, candidate, [seed], () => scriptedPolicy("fixed-reply", actions));
    if (episode === undefined) break;
    episodes.push(episode);
    if (!episode.won) break;
  }
  return episodes;
}

/** The `count` most frequent action sequences (ties: first seen first). */
function mostCommonReplies(sequences: readonly (readonly string[])[], count: number): (readonly string[])[] {
  const tally = new Map<string, { actions: readonly string[]; times: number }>();
  for (const actions of sequences) {
    const key = JSON.stringify(actions);
    const entry = tally.get(key);
    if (entry === undefined) tally.set(key, { actions, times: 1 });
    else entry.times += 1;
  }
  return [...tally.values()].sort((a, b) => b.times - a.times).slice(0, count).map((entry) => entry.actions);
}
