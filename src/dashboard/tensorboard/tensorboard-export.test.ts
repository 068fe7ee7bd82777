import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError } from "../../spec/index.js";
import { copyRunFixture, DASHBOARD_RUN_FIXTURE, folderState } from "../../testing/dashboard-fixtures.js";
import { readEventFile, type EventScalar } from "../../testing/tensorboard-events.js";
import { EventWriteError, exportTensorBoard } from "./index.js";

const root = mkdtempSync(join(tmpdir(), "envforge-tensorboard-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A clock for points without a `time`: 2026-01-02T03:04:05Z. */
const now = () => new Date("2026-01-02T03:04:05Z");

const series = (scalars: readonly EventScalar[], tag: string) => scalars.filter((scalar) => scalar.tag === tag).map((scalar) => [scalar.step, scalar.value]);

const eventFiles = (folder: string) => (existsSync(folder) ? readdirSync(folder).filter((name) => name.includes("tfevents")) : []);

/** A `trainer_step` line as CheckpointingTrainer writes it. */
const trainerStep = (policyVersion: number, fields: Record<string, unknown> = {}) => ({
  kind: "trainer_step",
  policyVersion,
  time: `2026-03-01T10:0${policyVersion}:00.000Z`,
  datums: 8,
  loss: 1.5 / policyVersion,
  clipFraction: 0.1 * policyVersion,
  klSamplerLearner: 0.01,
  tokens: 400,
  tokensPerSecond: 50 * policyVersion,
  seconds: { forwardBackward: 2, optimStep: 0.5, publish: 0.25, checkpoint: 0 },
  checkpoint: null,
  ...fields,
});

describe("exportTensorBoard", () => {
  it("exports the real dashboard-run fixture: round figures from metrics.jsonl and the store, steps = rounds, the store untouched", async () => {
    const run = copyRunFixture(join(root, "dashboard-run"));
    const before = folderState(run);
    const result = await exportTensorBoard({ runDir: run, now });

    expect(result.logDir).toBe(join(run, "tensorboard"));
    expect(result.runName).toBe("dashboard-run");
    expect(result.eventFile.startsWith(join(run, "tensorboard", "dashboard-run", "events.out.tfevents."))).toBe(true);
    expect(result.eventFile.endsWith(".envforge")).toBe(true);
    expect(result).toMatchObject({ roundsFromLog: 2, roundsFromStore: 0, trainerSteps: 0, replaced: 0, notices: [] });
    // trainer.name in both round lines and designer.admittedNames in both reports are labels
    expect(result.skipped).toMatchObject({ lines: 0, linesWithoutStep: 0, nonNumericValues: 4, nonFiniteValues: 0 });
    expect(result.skipped.nullValues).toBeGreaterThan(0);
    // nothing but the export was written into the run folder; no -wal or -shm next to the store
    const after = folderState(run);
    for (const path of Object.keys(after)) if (!path.startsWith(join(run, "tensorboard"))) expect(after[path]).toBe(before[path]);
    expect(Object.keys(after).filter((path) => !path.startsWith(join(run, "tensorboard")))).toEqual(Object.keys(before));
    expect(readdirSync(join(run, "tensorboard"))).toEqual(["dashboard-run"]);

    const file = readEventFile(result.eventFile);
    expect(file.fileVersion).toBe("brain.Event:2");
    expect(file.scalars).toHaveLength(result.points);
    expect(new Set(file.scalars.map((scalar) => scalar.tag))).toEqual(new Set(result.tags));
    expect(new Set(file.scalars.map((scalar) => scalar.step))).toEqual(new Set([1, 2]));
    // the store's round reports
    expect(series(file.scalars, "solver/winRateNoHint")).toEqual([[1, 0], [2, 0]]);
    expect(series(file.scalars, "solver/winRateHint")).toEqual([[1, 0], [2, 0]]);
    expect(series(file.scalars, "solver/invalidActionRate")).toEqual([[1, 1], [2, 1]]);
    expect(series(file.scalars, "admission/rejected/duplicate")).toEqual([[1, 1]]);
    expect(series(file.scalars, "designer/meanReward")).toEqual([[1, -0.5]]);
    expect(series(file.scalars, "designer/meanAttempts")).toEqual([[1, 3]]);
    // metrics.jsonl's round lines (float32 in the file)
    const solverReward = series(file.scalars, "solver/rewardMean");
    expect(solverReward.map(([step]) => step)).toEqual([1, 2]);
    expect(solverReward[0]?.[1]).toBeCloseTo(-0.06, 6);
    expect(solverReward[1]?.[1]).toBeCloseTo(-0.02, 6);
    expect(series(file.scalars, "designer/admissionFunnel/mechanicalReject")).toEqual([[1, 1], [2, 0]]);
    expect(series(file.scalars, "solver/groupsDropped")).toEqual([[1, 2], [2, 2]]);
    expect(series(file.scalars, "round/trainer/policyVersion")).toEqual([[1, 0], [2, 0]]);
    const seconds = series(file.scalars, "round/seconds");
    expect(seconds[0]?.[1]).toBeCloseTo(164.1, 3);
    expect(seconds[1]?.[1]).toBeCloseTo(52.9, 3);
    expect(series(file.scalars, "round/phaseSeconds/designer")).toEqual([[1, 83], [2, 0]]);
    // null figures are not points; the x-axis is not a tag; the noop trainer took no step
    expect(result.tags).not.toContain("designer/regret/mean");
    expect(result.tags).not.toContain("solver/step");
    expect(result.tags.some((tag) => tag.startsWith("trainer/"))).toBe(false);
    // the fixture's lines carry no time: every point has the export's clock
    expect(new Set(file.scalars.map((scalar) => scalar.wallTime))).toEqual(new Set([now().getTime() / 1000]));
    // the committed fixture itself was never touched
    expect(existsSync(join(DASHBOARD_RUN_FIXTURE, "tensorboard"))).toBe(false);
  });

  it("re-exporting replaces the previous event file, with no duplicated points", async () => {
    const run = copyRunFixture(join(root, "re-export"));
    const first = await exportTensorBoard({ runDir: run, now });
    const second = await exportTensorBoard({ runDir: run, now });
    expect(second.replaced).toBe(1);
    expect(eventFiles(join(run, "tensorboard", "re-export"))).toEqual([second.eventFile.split("/").at(-1)]);
    const scalars = readEventFile(second.eventFile).scalars;
    expect(scalars).toHaveLength(first.points);
    const keys = scalars.map((scalar) => `${scalar.tag}@${scalar.step}`);
    expect(new Set(keys).size).toBe(keys.length);
    // a file the user put there is kept
    writeFileSync(join(run, "tensorboard", "re-export", "notes.txt"), "mine\n");
    await exportTensorBoard({ runDir: run, now });
    expect(readdirSync(join(run, "tensorboard", "re-export")).filter((name) => !name.includes("tfevents"))).toEqual(["notes.txt"]);
  });

  it("exports trainer_step lines by policy version with their time, and skips and counts bad values and a half-written line", async () => {
    const run = join(root, "trainer-run");
    mkdirSync(run);
    const lines = [
      JSON.stringify(trainerStep(1)),
      JSON.stringify({ kind: "round", round: 1, time: "2026-03-01T10:05:00.000Z", trainer: { name: "reference", policyVersion: 2, datums: 8 }, seconds: 30, diagnostics: { step: 1, solver: { rewardMean: 0.25 } } }),
      JSON.stringify(trainerStep(2)),
      // a loss of null (no datum sent), a string where a number belongs, a NaN written as a string
      JSON.stringify(trainerStep(3, { loss: null, tokens: "many", clipFraction: "NaN" })).replace('"klSamplerLearner":0.01', '"klSamplerLearner":1e999'),
      JSON.stringify({ kind: "trainer_step", policyVersion: -1, loss: 2 }),
      JSON.stringify({ kind: "trainer_step", loss: 2 }),
      '{"kind":"trainer_step","policyVersion":4,"loss":0.', // the run was writing this line
    ];
    writeFileSync(join(run, "metrics.jsonl"), `${lines.join("\n")}`);
    const logDir = join(root, "all-runs");
    const result = await exportTensorBoard({ runDir: run, logDir, now });

    expect(result.eventFile.startsWith(join(logDir, "trainer-run", "events.out.tfevents."))).toBe(true);
    expect(result.notices).toEqual([expect.stringContaining("no store")]);
    expect(result).toMatchObject({ roundsFromLog: 1, trainerSteps: 3 });
    // checkpoint null ×3 + loss null; "many"; "NaN" and 1e999; the two lines without a valid step; the cut line
    expect(result.skipped).toEqual({ lines: 1, linesWithoutStep: 2, nullValues: 4, nonNumericValues: 2, nonFiniteValues: 2 });
    expect(existsSync(join(run, "tensorboard"))).toBe(false);

    const scalars = readEventFile(result.eventFile).scalars;
    const loss = series(scalars, "trainer/loss");
    expect(loss.map(([step]) => step)).toEqual([1, 2]);
    expect(loss[0]?.[1]).toBeCloseTo(1.5, 6);
    expect(loss[1]?.[1]).toBeCloseTo(0.75, 6);
    expect(series(scalars, "trainer/tokensPerSecond")).toEqual([[1, 50], [2, 100], [3, 150]]);
    expect(series(scalars, "trainer/tokens")).toEqual([[1, 400], [2, 400]]);
    expect(series(scalars, "trainer/clipFraction").map(([step]) => step)).toEqual([1, 2]);
    expect(series(scalars, "trainer/klSamplerLearner").map(([step]) => step)).toEqual([1, 2]);
    expect(series(scalars, "trainer/seconds/forwardBackward")).toEqual([[1, 2], [2, 2], [3, 2]]);
    expect(series(scalars, "trainer/datums")).toEqual([[1, 8], [2, 8], [3, 8]]);
    expect(series(scalars, "solver/rewardMean")).toEqual([[1, 0.25]]);
    expect(series(scalars, "round/trainer/policyVersion")).toEqual([[1, 2]]);
    // wall time from each line's time
    const wall = (tag: string, step: number) => scalars.find((scalar) => scalar.tag === tag && scalar.step === step)?.wallTime;
    expect(wall("trainer/loss", 1)).toBe(Date.parse("2026-03-01T10:01:00.000Z") / 1000);
    expect(wall("trainer/loss", 2)).toBe(Date.parse("2026-03-01T10:02:00.000Z") / 1000);
    expect(wall("solver/rewardMean", 1)).toBe(Date.parse("2026-03-01T10:05:00.000Z") / 1000);

    // a second run exported into the same log folder sits beside the first
    const other = copyRunFixture(join(root, "other-run"));
    await exportTensorBoard({ runDir: other, logDir, now });
    expect(readdirSync(logDir).sort()).toEqual(["other-run", "trainer-run"]);
  });

  it("takes a round whose metrics line is missing from the store's report", async () => {
    const run = copyRunFixture(join(root, "cut-log"));
    // the second round's line was never finished
    const [firstLine] = readFileSync(join(run, "metrics.jsonl"), "utf8").split("\n");
    writeFileSync(join(run, "metrics.jsonl"), `${firstLine}\n{"kind":"round","round":2,"trai`);
    const result = await exportTensorBoard({ runDir: run, now });
    expect(result).toMatchObject({ roundsFromLog: 1, roundsFromStore: 1 });
    expect(result.skipped.lines).toBe(1);
    const scalars = readEventFile(result.eventFile).scalars;
    expect(series(scalars, "round/phaseSeconds/solver").map(([step]) => step)).toEqual([1, 2]);
    expect(series(scalars, "solver/groupsDropped")).toEqual([[1, 2], [2, 2]]);
  });

  it("exports metrics.jsonl alone when the store is corrupt, and says so", async () => {
    const run = copyRunFixture(join(root, "corrupt-store"));
    writeFileSync(join(run, "envforge.db"), "this is not SQLite, but long enough to be read as a file of bytes ".repeat(3));
    const before = folderState(run);
    const result = await exportTensorBoard({ runDir: run, now });
    expect(result.notices).toEqual([expect.stringMatching(/not an SQLite database.*metrics\.jsonl only/)]);
    expect(result.tags).toContain("solver/rewardMean");
    expect(result.tags).not.toContain("solver/winRateNoHint");
    expect(folderState(run)[join(run, "envforge.db")]).toBe(before[join(run, "envforge.db")]);
  });

  it("refuses a log folder that is a file with a ConfigError, not a crash", async () => {
    const run = copyRunFixture(join(root, "to-a-file"));
    const file = join(root, "to-a-file.txt");
    writeFileSync(file, "x");
    const error = await exportTensorBoard({ runDir: run, logDir: file }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/cannot make the log folder .*to-a-file\.txt\/to-a-file .*pass --to a folder/);
  });

  it("refuses a missing folder, a folder that is no run, and a run with nothing to export, writing nothing", async () => {
    await expect(exportTensorBoard({ runDir: join(root, "no-such-run") })).rejects.toThrow(ConfigError);
    await expect(exportTensorBoard({ runDir: join(root, "no-such-run") })).rejects.toThrow(/no run folder at/);
    const notFolder = join(root, "a-file");
    writeFileSync(notFolder, "x");
    await expect(exportTensorBoard({ runDir: notFolder })).rejects.toThrow(/is not a folder/);
    const empty = join(root, "empty-folder");
    mkdirSync(empty);
    await expect(exportTensorBoard({ runDir: empty })).rejects.toThrow(/neither metrics\.jsonl nor envforge\.db/);
    const blank = join(root, "blank-metrics");
    mkdirSync(blank);
    writeFileSync(join(blank, "metrics.jsonl"), "");
    await expect(exportTensorBoard({ runDir: blank })).rejects.toThrow(/no numeric metric to export yet/);
    writeFileSync(join(blank, "metrics.jsonl"), 'not json\n{"kind":"round","round":1,"seconds":1e999}\n[1,2]\n{"kind":"rou');
    const error = await exportTensorBoard({ runDir: blank }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(/skipped 3 unreadable lines, 0 without a step, 1 non-finite values/);
    expect(readdirSync(blank)).toEqual(["metrics.jsonl"]);
  });

  it("names ./scripts/setup.sh when the trainer's Python is missing, and keeps the previous export when the writer fails", async () => {
    const run = copyRunFixture(join(root, "no-python"));
    const missing = await exportTensorBoard({ runDir: run, python: join(root, "no-venv", "bin", "python") }).catch((caught: unknown) => caught);
    expect(missing).toBeInstanceOf(ConfigError);
    expect((missing as Error).message).toContain("./scripts/setup.sh");
    expect(eventFiles(join(run, "tensorboard", "no-python"))).toEqual([]);

    const first = await exportTensorBoard({ runDir: run, now });
    const failed = await exportTensorBoard({ runDir: run, python: "/bin/false" }).catch((caught: unknown) => caught);
    expect(failed).toBeInstanceOf(EventWriteError);
    expect(failed).toMatchObject({ code: "tensorboard_write_failed", retryable: false });
    expect(eventFiles(join(run, "tensorboard", "no-python"))).toEqual([first.eventFile.split("/").at(-1)]);
    // no staging folder is left behind
    expect(readdirSync(join(run, "tensorboard"))).toEqual(["no-python"]);
  });
});
