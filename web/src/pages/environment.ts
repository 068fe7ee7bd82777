import { getJson, type EnvironmentDetail } from "../api.js";
import { codeBlock } from "../code-view.js";
import { details, el, fixed, json, link, percent, pre, table } from "../dom.js";
import { repairTurns, verdictList } from "./verdicts.js";

/** One episode's full transcript: the first observation, then action, observation and reward per turn. */
function transcript(episode: EnvironmentDetail["episodes"][number], index: number): HTMLElement {
  const { episode: played } = episode;
  const title = `round ${episode.round} · ${episode.role} · ${episode.hint ? "with hint" : "no hint"} · seed ${played.seed} · return ${fixed(played.return, 3)} · ${played.won ? "won" : "lost"} · ${played.turns.length} turn${played.turns.length === 1 ? "" : "s"}${played.failure ? ` · cut: ${played.failure.kind}` : ""}`;
  return details(
    `episode-${index}`,
    title,
    el(
      "ol",
      { class: "transcript" },
      el("li", { class: "turn" }, el("span", { class: "who" }, "reset → observation"), pre(played.initialObservation, "observation")),
      ...played.turns.map((turn, number) =>
        el(
          "li",
          { class: "turn" },
          el("span", { class: "who" }, `turn ${number + 1}: action${turn.invalidAction ? " (invalid)" : ""}`),
          pre(turn.action, "action"),
          el("span", { class: "who" }, `observation · reward ${fixed(turn.reward, 3)}`),
          pre(turn.observation, "observation"),
        ),
      ),
      played.failure ? el("li", { class: "problem" }, `${played.failure.kind}: ${played.failure.message}`) : null,
    ),
  );
}

/** An environment: manifest, env.py and oracle.py highlighted, hint, verdicts with evidence, calibration, episodes with transcripts, lineage. */
export async function environmentPage(runId: string, environmentId: string): Promise<HTMLElement> {
  const detail = await getJson<EnvironmentDetail>(`/api/runs/${encodeURIComponent(runId)}/environments/${encodeURIComponent(environmentId)}`);
  const { manifest } = detail.package;
  const route = (id: string) => `/runs/${encodeURIComponent(runId)}/environments/${encodeURIComponent(id)}`;
  const scores = detail.scores;
  const generation = detail.generation;
  return el(
    "div",
    { class: "page page-environment" },
    el("h1", {}, `${manifest.title ?? manifest.name ?? detail.id}`),
    el("p", { class: "summary" }, `${detail.id} · ${manifest.name ?? "?"} · ${manifest.provenance?.origin ?? "?"} · generation ${manifest.provenance?.generation ?? 0} · ${detail.round === null ? "seed" : `admitted in round ${detail.round}`}`),
    el("h2", {}, "Description"),
    pre(manifest.description ?? "", "prose"),
    el("h2", {}, "Hint"),
    pre(manifest.hint ?? "(none)", "prose hint"),
    el("h2", {}, "Manifest"),
    codeBlock(json(manifest), "json"),
    el("h2", {}, "env.py"),
    codeBlock(detail.package.envSource, "python"),
    el("h2", {}, "oracle.py"),
    codeBlock(detail.package.oracleSource, "python"),
    el("h2", {}, "Admission verdicts"),
    detail.verdicts.length === 0 && detail.round === null ? el("p", { class: "empty" }, "a seed environment: shipped, not admitted through the gates") : verdictList(detail.verdicts, "env-verdicts"),
    repairTurns(detail.repairs, "env-repairs"),
    el("h2", {}, "Calibration"),
    scores === null
      ? el("p", { class: "empty" }, "not calibrated (seed environments are not)")
      : table(
          ["plays per condition", "win rate (no hint)", "win rate (hint)", "mean return (no hint)", "mean return (hint)", "regret", "designer reward"],
          [[String(scores.plays), percent(scores.winRateNoHint), percent(scores.winRateHint), fixed(scores.meanReturnNoHint, 3), fixed(scores.meanReturnHint, 3), fixed(scores.regret, 3), fixed(scores.designerReward, 3)]],
          { id: "calibration-table" },
        ),
    el("h2", {}, `Episodes (${detail.episodeCount}${detail.episodeCount > detail.episodes.length ? `, newest ${detail.episodes.length} shown` : ""})`),
    detail.episodes.length === 0 ? el("p", { class: "empty" }, "no episode played in it yet") : el("div", { class: "episodes" }, ...detail.episodes.map(transcript)),
    el("h2", {}, "Lineage"),
    el(
      "p",
      { class: "lineage" },
      ...detail.ancestors.flatMap((ancestor) => [link(route(ancestor.id), `${ancestor.name} (g${ancestor.generation})`), " → "]),
      el("strong", {}, `${manifest.name ?? detail.id} (g${manifest.provenance?.generation ?? 0})`),
      ...(detail.children.length > 0 ? [" → ", ...detail.children.flatMap((child, index) => [index > 0 ? ", " : "", link(route(child.id), `${child.name} (g${child.generation})`)])] : []),
    ),
    generation === null
      ? null
      : el(
          "div",
          { class: "generation" },
          el("p", {}, `evolved: direction ${generation.direction}, effort ${generation.effort}, difficulty D ${fixed(generation.difficulty.total)} (L ${generation.difficulty.length}, scenario ${fixed(generation.difficulty.scenarioSurprise)}, skill ${fixed(generation.difficulty.skillSurprise)})`),
          details("generation-plan", "plan", pre(generation.plan.summary, "prose")),
          details("generation-patch", "patch", codeBlock(generation.patch, "diff")),
        ),
  );
}
