import { appendFileSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SqliteStore } from "../adapters/store/index.js";
import type { RoundReport } from "../spec/index.js";
import { copyRunFixture, DASHBOARD_RUN_FIXTURE, folderState, writeCorruptStore, writeEvolutionFolder, writeOlderSchemaStore } from "../testing/dashboard-fixtures.js";
import { launchHeadlessChromium } from "../testing/headless-chromium.js";
import { startDashboardServer, type DashboardServer } from "./dashboard-server.js";

/** Screenshots of every page, kept as test artifacts (artifacts/ is git-ignored). */
const ARTIFACTS = fileURLToPath(new URL("../../artifacts/dashboard/", import.meta.url));
const XSS = `<img src=x onerror="window.__xss = 1"><script>window.__xss = 2</script>`;

const scratch = mkdtempSync(join(tmpdir(), "envforge-dashboard-browser-"));
const live = copyRunFixture(join(scratch, "live-run"));
writeCorruptStore(join(scratch, "corrupt-run"));
writeOlderSchemaStore(join(scratch, "older-run"));
const childId = writeEvolutionFolder(join(scratch, "evolve-demo"));
let server: DashboardServer;
let browser: Browser;
let page: Page;
const errors: string[] = [];

/** Opens a route and waits until the page has rendered it (a fresh render, not the one before). */
async function open(route: string): Promise<void> {
  const rendered = await page.evaluate(() => Number(document.getElementById("app")?.dataset.rendered ?? 0));
  const target = `${server.url}/#${route}`;
  // the same URL again fires no hashchange: load it afresh
  if (page.url() === target) await page.reload();
  else await page.goto(target);
  await page.waitForFunction(
    ([expected, count]) => {
      const app = document.getElementById("app");
      return app?.dataset.route === expected && Number(app.dataset.rendered) !== count;
    },
    [route, rendered] as const,
  );
}

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

beforeAll(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  server = await startDashboardServer({ folders: [DASHBOARD_RUN_FIXTURE, live, join(scratch, "corrupt-run"), join(scratch, "older-run"), join(scratch, "missing-run"), join(scratch, "evolve-demo")], pollIntervalMs: 200, log: (line) => errors.push(line) });
  browser = await launchHeadlessChromium();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on("pageerror", (error) => errors.push(`page error: ${error.message}`));
  page.on("dialog", (dialog) => {
    errors.push(`dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.setDefaultTimeout(8000);
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  rmSync(scratch, { recursive: true, force: true });
});

describe("dashboard in headless Chromium, on a real run", () => {
  it("lists the runs, and says what is wrong for a missing, a corrupt and an older-schema store", async () => {
    const before = folderState(DASHBOARD_RUN_FIXTURE);
    await open("/");
    const table = page.locator("#runs-table");
    await expect(table.locator("tbody tr").count()).resolves.toBe(6);
    const row = (id: string) => table.locator("tbody tr", { has: page.locator(`a[href="#/runs/${id}"]`) });
    await expect(row("dashboard-run").innerText()).resolves.toMatch(/done\s+run\s+embedded\s+noop\s+2 \/ 2/);
    await expect(row("corrupt-run").innerText()).resolves.toContain("is not an SQLite database");
    await expect(row("missing-run").innerText()).resolves.toContain("does not exist");
    await expect(row("older-run").innerText()).resolves.toContain("older schema: no repair turns");
    await expect(row("evolve-demo").innerText()).resolves.toMatch(/evolution\s+evolution/);
    await shot("runs");
    await open("/runs/corrupt-run");
    await expect(page.locator("#problem").innerText()).resolves.toContain("is not an SQLite database");
    await shot("run-corrupt");
    await open("/runs/older-run/designs");
    await expect(page.locator(".design .outcome").innerText()).resolves.toContain("stopped by parse: unparseable");
    expect(folderState(DASHBOARD_RUN_FIXTURE)).toEqual(before);
    expect(errors).toEqual([]);
  });

  it("shows a run's charts with data points, the funnel by gate and reason, and the rounds table", async () => {
    await open("/runs/dashboard-run");
    await page.locator('.chart[data-chart="win-rate"] canvas').waitFor();
    const points = async (name: string) => Number(await page.locator(`.chart[data-chart="${name}"]`).getAttribute("data-points"));
    expect(await points("win-rate")).toBe(4);
    expect(await points("invalid-actions")).toBe(2);
    expect(await points("designer-reward")).toBeGreaterThanOrEqual(1);
    expect(await points("funnel")).toBe(10);
    expect(await points("phase-seconds")).toBe(8);
    expect(await points("loss")).toBe(0);
    await expect(page.locator('.chart[data-chart="loss"]').innerText()).resolves.toContain("the noop trainer takes none");
    await expect(page.locator("#funnel-table").innerText()).resolves.toMatch(/duplicate\s+duplicate\s+1\s+1/);
    await expect(page.locator("#funnel-table").innerText()).resolves.toMatch(/novelty\s+text_near_duplicate\s+0\s+1/);
    await expect(page.locator("#rounds-table tbody tr").count()).resolves.toBe(2);
    await shot("run");
    // the first screen of the page, as docs/dashboard.md shows it (docs/dashboard.png is a copy)
    await page.screenshot({ path: join(ARTIFACTS, "run-first-screen.png") });
  });

  it("shows an environment with highlighted code, hint, and an episode's full transcript", async () => {
    await open("/runs/dashboard-run");
    // the first environment the Solver played in (its episodes column is not 0)
    const played = page.locator("#environments-table tbody tr td:nth-child(5)").filter({ hasText: /^[1-9]/ });
    expect(await played.count()).toBe(2);
    await played.first().locator("xpath=..").locator("a").click();
    await page.locator(".page-environment").waitFor();
    await expect(page.locator(".code-python .tok-keyword").count()).resolves.toBeGreaterThan(5);
    await expect(page.locator("pre.hint").innerText()).resolves.not.toBe("");
    const episode = page.locator(".episodes details").first();
    await episode.locator("summary").click();
    const transcript = episode.locator(".transcript");
    await expect(transcript.locator("li.turn").count()).resolves.toBeGreaterThan(1);
    await expect(transcript.locator("pre.observation").first().innerText()).resolves.not.toBe("");
    await expect(transcript.locator("pre.action").first().isVisible()).resolves.toBe(true);
    await expect(transcript.innerText()).resolves.toMatch(/turn 1: action[\s\S]*reward/);
    await shot("environment");
  });

  it("shows every design with the verdict that stopped it, its evidence and its repair turns", async () => {
    await open("/runs/dashboard-run/designs");
    const design = page.locator(".design").first();
    await expect(design.locator(".outcome").innerText()).resolves.toContain("stopped by duplicate: duplicate — the design is an exact copy of digit-sum");
    await expect(design.locator(".repairs h4").innerText()).resolves.toContain("2 rejected attempts");
    await design.locator(".repairs details summary").first().click();
    await expect(design.locator(".repairs details").first().innerText()).resolves.toContain("text_near_duplicate");
    await shot("designs");
    await open("/runs/dashboard-run/lineages");
    await expect(page.locator(".page-lineages .empty").innerText()).resolves.toContain("no lineage in this store");
  });

  it("shows a lineage tree with direction, effort, difficulty, plan, patch, attempts and frontier probes", async () => {
    await open("/runs/evolve-demo/lineages");
    const lineage = page.locator("article.lineage").first();
    await expect(lineage.locator("h2").innerText()).resolves.toContain("answer-42");
    expect(Number(await lineage.locator(".chart").getAttribute("data-points"))).toBe(2);
    const generation = lineage.locator('li.generation[data-generation="1"]');
    await expect(generation.innerText()).resolves.toContain("g1 · skill · effort high · D 3.50");
    await generation.locator("details summary", { hasText: "patch" }).click();
    await expect(generation.locator(".code-diff .tok-inserted").count()).resolves.toBeGreaterThan(0);
    await expect(lineage.locator("table.attempts").innerText()).resolves.toContain("plan_rejected");
    await expect(lineage.locator("table.probes").innerText()).resolves.toMatch(/6 \/ 8\s+yes/);
    await shot("lineages");
    await generation.locator("a").first().click();
    await page.waitForFunction((id) => document.getElementById("app")?.dataset.route?.endsWith(id), childId);
    await expect(page.locator(".page-environment .lineage").innerText()).resolves.toContain("answer-42 (g0) → add-two (g1)");
    await expect(page.locator(".generation").innerText()).resolves.toContain("direction skill, effort high, difficulty D 3.50");
    await shot("environment-evolved");
  });

  it("updates live when the run writes a new round, and renders an XSS attempt in a completion as text", async () => {
    await open("/runs/live-run");
    await expect(page.locator("#rounds-table tbody tr").count()).resolves.toBe(2);
    const rendered = Number(await page.locator("#app").getAttribute("data-rendered"));
    const store = new SqliteStore(join(live, "envforge.db"));
    const [, second] = store.listRounds();
    const report: RoundReport = {
      ...(second!.report as RoundReport),
      round: 3,
      solver: { episodes: 4, winRateNoHint: 0.25, winRateHint: 0.75, invalidActionRate: 0.5, signal: { groups: 2, returnVariance: 1, penaltyOnly: 0, constant: 1, fraction: 0.5 } },
      levels: [{ environmentId: "env-x", name: "number-guess", count: 7, window: [0, 1], next: [0, 2], byLevel: { "0": { episodes: 1, wins: 1 }, "1": { episodes: 1, wins: 0 } } }],
    };
    store.beginRound(3);
    store.saveSolverPhase(3, store.listEpisodes(2).map((episode) => ({ ...episode, round: 3 })));
    store.saveDesign({ round: 3, index: 0, promptHash: "xss", corpusDocumentIds: [], completion: XSS, verdicts: [{ status: "reject", gate: "parse", reason: "unparseable", message: `no environment in ${XSS}` }], environmentId: null, reward: -1 });
    store.finishRound(3, report);
    store.close();
    appendFileSync(join(live, "metrics.jsonl"), `${JSON.stringify({ kind: "trainer_step", policyVersion: 1, datums: 4, loss: 1.5, clipFraction: 0.1, klSamplerLearner: 0.01, tokens: 100, tokensPerSecond: 50, seconds: { forwardBackward: 1, optimStep: 1, publish: 0, checkpoint: 0 }, checkpoint: null })}\n`);
    await page.waitForFunction((count) => Number(document.getElementById("app")?.dataset.rendered) > count && document.querySelectorAll("#rounds-table tbody tr").length === 3, rendered, { timeout: 8000 });
    expect(Number(await page.locator('.chart[data-chart="win-rate"]').getAttribute("data-points"))).toBe(6);
    expect(Number(await page.locator('.chart[data-chart="loss"]').getAttribute("data-points"))).toBe(1);
    // the round written now is the first with a level window and a learning-signal figure
    expect(Number(await page.locator('.chart[data-chart="levels"]').getAttribute("data-points"))).toBe(1);
    expect(Number(await page.locator('.chart[data-chart="learning-signal"]').getAttribute("data-points"))).toBe(1);
    await expect(page.locator("#live").innerText()).resolves.toBe("live");
    await shot("run-live-update");

    await open("/runs/live-run/designs");
    const attack = page.locator(".design", { hasText: "round 3" });
    await attack.locator("details summary").first().click();
    await expect(attack.locator("pre.completion").innerText()).resolves.toBe(XSS);
    await expect(attack.locator(".outcome").innerText()).resolves.toContain(`no environment in ${XSS}`);
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await shot("designs-xss");
    expect(errors).toEqual([]);
  });
});
