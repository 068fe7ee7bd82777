import "./style.css";
import { ApiError, followChanges, takeTokenFromFragment } from "./api.js";
import { el, link } from "./dom.js";
import { designsPage } from "./pages/designs.js";
import { environmentPage } from "./pages/environment.js";
import { lineagesPage } from "./pages/lineages.js";
import { runPage } from "./pages/run.js";
import { runsPage } from "./pages/runs.js";

interface Route {
  /** The run the page shows, or null for the runs list (which every change concerns). */
  readonly runId: string | null;
  readonly crumbs: readonly [string, string][];
  readonly render: () => Promise<HTMLElement>;
}

function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter((part) => part !== "").map(decodeURIComponent);
  const [section, runId, sub, id] = parts;
  if (section === "runs" && runId !== undefined) {
    const runRoute = `/runs/${encodeURIComponent(runId)}`;
    const crumbs: [string, string][] = [["/", "runs"], [runRoute, runId]];
    if (sub === "environments" && id !== undefined) return { runId, crumbs: [...crumbs, [`${runRoute}/environments/${encodeURIComponent(id)}`, id]], render: () => environmentPage(runId, id) };
    if (sub === "designs") return { runId, crumbs: [...crumbs, [`${runRoute}/designs`, "designs"]], render: () => designsPage(runId) };
    if (sub === "lineages") return { runId, crumbs: [...crumbs, [`${runRoute}/lineages`, "lineages"]], render: () => lineagesPage(runId) };
    return { runId, crumbs, render: () => runPage(runId) };
  }
  return { runId: null, crumbs: [["/", "runs"]], render: runsPage };
}

const app = document.getElementById("app") as HTMLElement;
const crumbs = document.getElementById("crumbs") as HTMLElement;
const live = document.getElementById("live") as HTMLElement;
let generation = 0;
let rendering: Promise<void> = Promise.resolve();

/** Renders the current route; a re-render (live update) keeps the scroll position and the open sections. */
async function show(refresh: boolean): Promise<void> {
  const mine = ++generation;
  const route = parseRoute(location.hash);
  crumbs.replaceChildren(...route.crumbs.flatMap(([target, label], index) => [index > 0 ? " / " : "", link(target, label)]));
  const open = new Set([...app.querySelectorAll("details[open]")].map((node) => node.getAttribute("data-key")));
  const scroll = window.scrollY;
  let page: HTMLElement;
  try {
    page = await route.render();
  } catch (error) {
    const message = error instanceof ApiError ? error.message : `the page failed: ${(error as Error).message}`;
    page = el("div", { class: "page page-problem" }, el("h1", {}, "Cannot show this page"), el("p", { class: "problem", id: "problem" }, message), route.runId === null ? null : el("p", {}, link("/", "back to all runs")));
  }
  if (mine !== generation) return;
  if (refresh) for (const node of page.querySelectorAll("details")) if (open.has(node.getAttribute("data-key"))) node.open = true;
  app.replaceChildren(page);
  app.dataset.route = location.hash.replace(/^#/, "") || "/";
  app.dataset.rendered = String(Number(app.dataset.rendered ?? "0") + 1);
  if (refresh) window.scrollTo(0, scroll);
  else window.scrollTo(0, 0);
}

takeTokenFromFragment();
window.addEventListener("hashchange", () => {
  rendering = rendering.then(() => show(false));
});
rendering = show(false);
void followChanges(
  (runs) => {
    const route = parseRoute(location.hash);
    if (route.runId === null || runs.includes(route.runId)) rendering = rendering.then(() => show(true));
  },
  (connected) => {
    live.textContent = connected ? "live" : "offline";
    live.className = `live ${connected ? "on" : "off"}`;
  },
);
