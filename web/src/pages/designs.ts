import { getJson, type DesignView } from "../api.js";
import { details, el, fixed, link, pre } from "../dom.js";
import { repairTurns, verdictList } from "./verdicts.js";

/** Designs: every completion, parsed or not, with the verdict that stopped it and the repair turns. */
export async function designsPage(runId: string): Promise<HTMLElement> {
  const { designs } = await getJson<{ designs: DesignView[] }>(`/api/runs/${encodeURIComponent(runId)}/designs`);
  const route = `/runs/${encodeURIComponent(runId)}`;
  return el(
    "div",
    { class: "page page-designs" },
    el("h1", {}, `Designs of ${runId}`),
    designs.length === 0
      ? el("p", { class: "empty" }, "no design stored yet")
      : el(
          "div",
          { class: "designs" },
          ...designs.map((design) => {
            const key = `design-${design.round}-${design.index}`;
            const stop = design.stoppedBy;
            return el(
              "article",
              { class: `design ${design.environmentId === null ? "rejected" : "admitted"}`, id: key },
              el("h3", {}, `round ${design.round} · design ${design.index} · reward ${fixed(design.reward)}${design.policyVersion === null ? "" : ` · policy v${design.policyVersion}`} · ${design.repairs.length + 1} attempt${design.repairs.length === 0 ? "" : "s"}`),
              design.environmentId !== null
                ? el("p", { class: "outcome admitted" }, "admitted: ", link(`${route}/environments/${encodeURIComponent(design.environmentId)}`, design.environmentId))
                : el(
                    "p",
                    { class: "outcome rejected" },
                    stop === null ? "stopped (no verdict stored)" : stop.status === "reject" ? `stopped by ${stop.gate}: ${stop.reason} — ${stop.message}` : `stopped after ${stop.gate}`,
                  ),
              details(`${key}-completion`, design.completion === "" ? "completion (empty: the model failed)" : `completion (${design.completion.length} characters)`, pre(design.completion, "completion")),
              details(`${key}-verdicts`, `verdicts (${design.verdicts.length})`, verdictList(design.verdicts, key)),
              repairTurns(design.repairs, key),
              el("p", { class: "meta" }, `prompt ${design.promptHash.slice(0, 16)} · corpus ${design.corpusDocumentIds.join(", ") || "none"}`),
            );
          }),
        ),
  );
}
