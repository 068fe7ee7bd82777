import {
  EnvforgeError,
  packageId,
  reject,
  type ChatMessage,
  type CorpusDocument,
  type DesignAttempt,
  type DesignRecord,
  type DesignTokens,
  type DesignTurnTokens,
  type EnvPackage,
  type EnvironmentRecord,
  type EpisodeRecord,
  type LanguageModel,
  type Sandbox,
  type Verdict,
} from "../../spec/index.js";
import type { Config } from "../../config/index.js";
import { admit, calibratedLevel, type AdmissionGate, type AdmissionResources } from "../admission/index.js";
import {
  classifyDesignFailure,
  designerRewardSettingsFromConfig,
  scoreDesign,
  type LearningPotentialState,
} from "../rewards/index.js";
import { SCAFFOLD_GRAMMAR } from "../scaffold/index.js";
import { seededRandom } from "../rollout/index.js";
import { playWithAndWithoutHint, scoreHintPlays } from "./calibrate.js";
import { buildDesignerPrompt, promptExamplePackages, type DesignerPrompt } from "./designer-prompt.js";
import { repairMessage } from "./repair-message.js";
import { parseDesign } from "./parse-design.js";
import { solverPolicy } from "./solver-policy.js";
import { deriveSeed, rankExamples, sampleWithoutReplacement } from "./sampling.js";

/** What one design step needs. */
export interface DesignStepInput {
  readonly round: number;
  readonly index: number;
  readonly config: Config;
  readonly model: LanguageModel;
  readonly sandbox: Sandbox;
  readonly corpus: readonly CorpusDocument[];
  /** Every environment in memory: the novelty gate compares against all of them, held-out ones included. */
  readonly memory: readonly EnvironmentRecord[];
  /** Ids of the held-out environments (`envforge eval`'s holdout split), never shown as prompt examples. @default none */
  readonly heldOut?: readonly string[];
  readonly gates: readonly AdmissionGate[];
  /** Run-long admission resources (source inspector, fingerprint cache, benchmark texts, rubric). */
  readonly admission: AdmissionResources;
  readonly policyVersion: number;
  /** Learning-potential averages before this design (read only by that reward mode). */
  readonly learningPotential: LearningPotentialState;
  /** Clock for provenance timestamps. */
  readonly now: () => Date;
  /**
   * Called after each rejected attempt that gets a repair turn, with its first failing verdict and the seconds
   * since the attempt's generation began (the CLI prints it, so a long Designer phase shows its progress). @default none
   */
  readonly onRepair?: (repair: { readonly turn: number; readonly verdict: Verdict | undefined; readonly seconds: number; readonly truncated: boolean }) => void;
}

/** The stored result of one design step. */
export interface DesignStepResult {
  readonly design: DesignRecord;
  /** Learning-potential averages after this design. */
  readonly learningPotential: LearningPotentialState;
  readonly admitted?: { readonly environment: EnvironmentRecord; readonly episodes: readonly EpisodeRecord[] };
}

/**
 * One Designer step (design map, data flow): build the design's prompt
 * ({@link designerPromptOf}: k corpus documents and m memory examples, shared by
 * the `designer.samplesPerPrompt` designs of one prompt group), prompt the model, parse the completion, run the admission gates
 * (novelty pool: memory and the prompt's example; an exact copy is `exact_copy`), and for an admitted environment play it
 * with and without the hint to score regret. A rejected attempt goes back to the
 * Designer as a repair turn ({@link repairMessage}) up to `designer.repairTurns`
 * times: in `designer.repairMode` "conversation" the attempt and the verdict join
 * the conversation; in "restart" (and always for an attempt cut off at
 * `designer.maxTokens`: mostly a loop, which small models copy when shown it) the
 * prompt is asked again with the verdict as a note. The whole
 * conversation is the Designer's trajectory and the final verdict decides. The Designer reward comes from
 * `scoreDesign` in the configured mode (`reward.mode`); a failed design earns
 * its failure class's penalty, a model error earns nothing (reward 0, ignored
 * by advantages). Untrusted output never throws here: every failure is a
 * verdict in the record.
 */
export async function runDesignStep(input: DesignStepInput): Promise<DesignStepResult> {
  const { config, round, index } = input;
  const prompt = designerPromptOf(input);
  const base = { round, index, promptHash: prompt.hash, corpusDocumentIds: prompt.corpusDocumentIds, policyVersion: input.policyVersion };
  const settings = designerRewardSettingsFromConfig(config.reward);
  let conversation: ChatMessage[] = [...prompt.messages];
  const repairs: DesignAttempt[] = [];
  // the sampled tokens of every attempt, while the model gives them: the Designer's training datum
  const turnTokens: DesignTurnTokens[] = [];
  let tokensComplete = true;
  const tokens = (): { tokens?: DesignTokens } => {
    const [first, ...rest] = turnTokens;
    if (!tokensComplete || first === undefined) return {};
    return { tokens: rest.length === 0 ? first : { ...first, repairs: rest } };
  };
  const rejected = (completion: string, verdicts: readonly Verdict[]): DesignStepResult => {
    const failure = classifyDesignFailure(verdicts);
    const scored = failure === null ? null : scoreDesign({ kind: "failed", failure }, settings, input.learningPotential);
    return {
      design: { ...base, ...tokens(), completion, verdicts, environmentId: null, reward: scored?.reward ?? 0, ...(repairs.length > 0 ? { repairs } : {}) },
      learningPotential: scored?.state ?? input.learningPotential,
    };
  };

  for (let turn = 0; ; turn += 1) {
    let completion: string;
    let truncated = false;
    const attemptStarted = Date.now();
    try {
      const generation = await input.model.generate(conversation, {
        maxTokens: config.designer.maxTokens,
        temperature: config.designer.temperature,
        ...(config.designer.repetitionPenalty > 0 ? { repetitionPenalty: config.designer.repetitionPenalty } : {}),
        ...(config.designer.grammar && prompt.format === "scaffold" ? { grammar: SCAFFOLD_GRAMMAR } : {}),
        seed: deriveSeed(config.seed, round, "design-sampling", index) + turn,
      });
      completion = generation.text;
      truncated = generation.finishReason === "length";
      if (generation.promptTokens !== undefined && generation.tokens !== undefined && generation.logprobs !== undefined) {
        turnTokens.push({ prompt: generation.promptTokens, completion: generation.tokens, logprobs: generation.logprobs });
      } else {
        tokensComplete = false;
      }
    } catch (error) {
      const code = error instanceof EnvforgeError ? error.code : "model_error";
      // a model error ends the design; earlier attempts stay in `repairs`
      tokensComplete = false;
      return rejected("", [reject("model", "model_error", `${code}: ${(error as Error).message}`)]);
    }
    const outcome = await evaluateCompletion(input, prompt, completion);
    if (outcome.admitted !== undefined) return admittedResult(input, { ...base, ...tokens(), ...(repairs.length > 0 ? { repairs } : {}) }, completion, outcome.verdicts, outcome.admitted, settings);
    if (turn >= config.designer.repairTurns) return rejected(completion, outcome.verdicts);
    repairs.push({ completion, verdicts: outcome.verdicts });
    input.onRepair?.({ turn, verdict: outcome.verdicts.find((verdict) => verdict.status === "reject"), seconds: (Date.now() - attemptStarted) / 1000, truncated });
    const mode = config.designer.repairMode;
    const feedback = repairMessage(outcome.verdicts, prompt.format, { truncated, mode });
    if (truncated || mode === "restart") {
      // a reply cut off at the token bound is mostly a loop, which the model copies when shown it: ask the prompt again with the note
      conversation = [...prompt.messages.slice(0, -1), { role: "user", content: `${prompt.messages.at(-1)?.content ?? ""}\n\n${feedback}` }];
    } else {
      conversation.push({ role: "assistant", content: completion }, { role: "user", content: feedback });
    }
  }
}

/** What admitting one completion gave: the verdicts in order and, when every gate passed, the package. */
interface CompletionOutcome {
  readonly verdicts: readonly Verdict[];
  readonly admitted?: EnvPackage;
}

/** Parses one completion and runs the admission gates (novelty pool: memory and the prompt's built-in example). */
async function evaluateCompletion(input: DesignStepInput, prompt: DesignerPrompt, completion: string): Promise<CompletionOutcome> {
  const { config, round, index } = input;
  const parsed = parseDesign(completion, {
    origin: "designer",
    parentId: null,
    generation: 0,
    designerModel: input.model.id,
    promptHash: prompt.hash,
    corpusDocumentIds: [...prompt.corpusDocumentIds],
    createdAt: input.now().toISOString(),
  });
  if (!parsed.ok) return { verdicts: [parsed.verdict] };
  const pkg = parsed.package;
  // an exact copy of memory or of the prompt's example is rejected by admit() before any gate (novelty / exact_copy)
  const pool = [...input.memory.map((record) => record.package), ...promptExamplePackages(prompt)];
  const admission = await admit(pkg, input.gates, {
    ...input.admission,
    sandbox: input.sandbox,
    settings: config.admission,
    pool,
    model: input.model,
    solver: {
      maxTurns: config.solver.maxTurns,
      concurrency: config.solver.concurrency,
      policy: (play) =>
        solverPolicy(input.model, {
          hint: null,
          maxTokens: config.solver.maxTokens,
          temperature: config.solver.temperature,
          seed: deriveSeed(config.seed, round, "calibration-gate", index, play),
          format: config.solver.format,
          historyChars: config.solver.historyChars,
        }),
    },
  });
  const verdicts: Verdict[] = [{ status: "pass", gate: "parse" }, ...admission.verdicts];
  return admission.admitted ? { verdicts, admitted: pkg } : { verdicts };
}

/** Plays an admitted environment with and without its hint and scores the design (SPADE's hint regret). */
async function admittedResult(
  input: DesignStepInput,
  base: Omit<DesignRecord, "completion" | "verdicts" | "environmentId" | "reward">,
  completion: string,
  verdicts: readonly Verdict[],
  pkg: EnvPackage,
  settings: ReturnType<typeof designerRewardSettingsFromConfig>,
): Promise<DesignStepResult> {
  const { config, round, index } = input;
  const id = packageId(pkg);
  // a levelled family is scored at the level calibration found in the Solver's band (level 0 without the gate)
  const level = calibratedLevel(verdicts);
  const plays = await playWithAndWithoutHint(
    pkg,
    input.model,
    input.sandbox,
    { plays: config.plays, ...config.solver },
    `${config.seed}/${round}/calibration/${index}`,
    level === undefined ? undefined : { low: level, high: level },
  );
  const calibration = scoreHintPlays(plays);
  const scored = scoreDesign(
    { kind: "admitted", calibration: { regret: calibration.regret, winRateNoHint: calibration.winRateNoHint, skills: pkg.manifest.skills } },
    settings,
    input.learningPotential,
  );
  const scores = { ...calibration, designerReward: scored.reward, ...(level === undefined ? {} : { level }) };
  const episode = (hint: boolean) => (value: EpisodeRecord["episode"]): EpisodeRecord => ({
    round,
    environmentId: id,
    role: "calibration",
    hint,
    policyVersion: input.policyVersion,
    episode: value,
  });
  return {
    design: { ...base, completion, verdicts, environmentId: id, reward: scores.designerReward },
    learningPotential: scored.state,
    admitted: {
      environment: { id, package: pkg, round, scores },
      episodes: [...plays.withoutHint.map(episode(false)), ...plays.withHint.map(episode(true))],
    },
  };
}

/**
 * The prompt of design `index` of a round (SPADE: several designs per prompt, so the
 * Designer's group-relative advantage compares completions of the same prompt).
 * Designs `g·G … g·G + G − 1` (G = `designer.samplesPerPrompt`) form prompt group g
 * and get the same k corpus documents and m memory examples: the documents are drawn
 * with a seed of (master seed, round, g), and the examples come only from environments
 * in memory before this round, so a design admitted earlier in the round, or a resumed
 * round, does not change the prompt of its group; held-out environments are never examples,
 * so the Designer is not shown what evaluation holds out. Each design still samples with its
 * own seed.
 */
export function designerPromptOf(input: Pick<DesignStepInput, "config" | "round" | "index" | "corpus" | "memory" | "heldOut">): DesignerPrompt {
  const { config, round, index } = input;
  const group = Math.floor(index / config.designer.samplesPerPrompt);
  const random = seededRandom(deriveSeed(config.seed, round, "design", group));
  const documents = sampleWithoutReplacement(input.corpus, config.designer.corpusDocuments, random);
  const heldOut = new Set(input.heldOut ?? []);
  // the tool format shows tool environments only (a game's class would teach text actions)
  const before = input.memory.filter((record) => (record.round === null || record.round < round) && !heldOut.has(record.id) && (config.designer.format !== "tool" || record.package.manifest.tools !== undefined));
  const examples = rankExamples(before, config.designer.memoryExamples, random).map((record) => record.package);
  // the built-in example rotates over prompt groups and rounds
  return buildDesignerPrompt(documents, examples, config.designer.format, round + group);
}
