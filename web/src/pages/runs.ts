import { getJson, type RunSummary } from "../api.js";
import { el, link, table } from "../dom.js";

const statusBadge = (summary: RunSummary) => el("span", { class: `badge status-${summary.status}` }, summary.status);

/** The runs list: every folder with model, trainer, rounds, admitted, last step, status; a broken store shows what is wrong. */
export async function runsPage(): Promise<HTMLElement> {
  const { runs } = await getJson<{ runs: RunSummary[] }>("/api/runs");
  const rows = runs.map((run) => [
    link(`/runs/${encodeURIComponent(run.id)}`, run.id),
    statusBadge(run),
    run.kind,
    run.model ?? "?",
    run.trainer ?? "?",
    run.kind === "evolution" ? `${run.lineages} lineages` : `${run.roundsDone}${run.roundsPlanned === null ? "" : ` / ${run.roundsPlanned}`}`,
    String(run.admitted),
    String(run.environments),
    run.lastStep === null ? "–" : String(run.lastStep),
    run.updatedAt === null ? "–" : new Date(run.updatedAt).toLocaleString(),
    run.problem === null ? (run.notices.length > 0 ? el("span", { class: "notice" }, run.notices.join("; ")) : "") : el("span", { class: "problem" }, run.problem.message),
  ]);
  return el(
    "div",
    { class: "page page-runs" },
    el("h1", {}, "Runs"),
    runs.length === 0
      ? el("p", { class: "empty" }, "No run folder found: pass --out with a run folder, an evolution folder or a folder of them (such as runs/).")
      : table(["run", "status", "kind", "model", "trainer", "rounds", "admitted", "environments", "last step", "updated", "notes"], rows, { class: "runs", id: "runs-table" }),
  );
}
