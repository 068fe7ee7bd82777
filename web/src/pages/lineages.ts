import { getJson, type LineageView } from "../api.js";
import { lineChart } from "../charts.js";
import { codeBlock } from "../code-view.js";
import { details, el, fixed, link, pre, table } from "../dom.js";
import { verdictList } from "./verdicts.js";

/** Lineages: the tree per seed with direction, effort and difficulty D per generation, each child's plan and patch, every attempt, frontier probes. */
export async function lineagesPage(runId: string): Promise<HTMLElement> {
  const { lineages } = await getJson<{ lineages: LineageView[] }>(`/api/runs/${encodeURIComponent(runId)}/lineages`);
  const route = (id: string) => `/runs/${encodeURIComponent(runId)}/environments/${encodeURIComponent(id)}`;
  return el(
    "div",
    { class: "page page-lineages" },
    el("h1", {}, `Lineages of ${runId}`),
    lineages.length === 0
      ? el("p", { class: "empty" }, "no lineage in this store (lineages come from envforge evolve, or a run with solver.sampling: frontier)")
      : el(
          "div",
          { class: "lineages" },
          ...lineages.map(({ lineage, generations, attempts, probes }) => {
            const key = `lineage-${lineage.id}`;
            const xs = [0, ...generations.map((generation) => generation.generation)];
            return el(
              "article",
              { class: "lineage", id: key },
              el("h2", {}, `${lineage.seedName} · ${lineage.id}`),
              el("p", { class: "summary" }, `seed `, link(route(lineage.seedId), lineage.seedTitle ?? lineage.seedName), ` · D ${fixed(lineage.difficulty.total)} · ${generations.length} generation(s), ${attempts.length} attempt(s)`),
              lineChart(`difficulty-${lineage.id}`, "Difficulty D per generation", "generation", xs, [{ label: "D", values: [lineage.difficulty.total, ...generations.map((generation) => generation.difficulty.total)] }], "no generation yet"),
              el(
                "ol",
                { class: "tree" },
                el("li", {}, el("strong", {}, `g0 ${lineage.seedName}`), ` · D ${fixed(lineage.difficulty.total)} · ${lineage.sequence.steps.map((step) => `${step.scenario}/${step.skill}`).join(" → ")}`),
                ...generations.map((generation) =>
                  el(
                    "li",
                    { class: "generation", "data-generation": String(generation.generation) },
                    link(route(generation.environmentId), `g${generation.generation}`),
                    ` · ${generation.direction} · effort ${generation.effort} · D ${fixed(generation.difficulty.total)} (L ${generation.difficulty.length})`,
                    details(`${key}-g${generation.generation}-plan`, "plan", pre(generation.plan.summary, "prose"), pre(generation.plan.steps.map((step) => `${step.scenario} / ${step.skill}`).join("\n"), "text")),
                    details(`${key}-g${generation.generation}-patch`, "patch", codeBlock(generation.patch, "diff")),
                    details(`${key}-g${generation.generation}-validations`, "validations", verdictList([...generation.validations, ...generation.admission], `${key}-g${generation.generation}`)),
                  ),
                ),
              ),
              el("h3", {}, "Attempts"),
              attempts.length === 0
                ? el("p", { class: "empty" }, "none")
                : table(
                    ["generation", "attempt", "direction", "effort", "outcome", "planning rounds", "modification rounds", "seconds"],
                    attempts.map((attempt) => [String(attempt.generation), String(attempt.attempt + 1), attempt.direction, attempt.effort, attempt.outcome, String(attempt.planning.length), String(attempt.modification.length), fixed(attempt.seconds, 1)]),
                    { class: "attempts" },
                  ),
              el("h3", {}, "Frontier probes"),
              probes.length === 0
                ? el("p", { class: "empty" }, "none")
                : table(
                    ["round", "generation", "wins / rollouts", "released"],
                    probes.map((probe) => [String(probe.round), String(probe.generation), `${probe.wins} / ${probe.rollouts}`, probe.released ? "yes" : "no"]),
                    { class: "probes" },
                  ),
            );
          }),
        ),
  );
}
