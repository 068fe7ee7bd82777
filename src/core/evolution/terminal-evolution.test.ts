import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readHarborTask } from "../../adapters/terminal/harbor-task.js";
import { readTaskFiles, writeTaskFolder } from "../../adapters/terminal/task-folder.js";
import { TerminalJailRuntime } from "../../adapters/terminal/terminal-jail.js";
import { parseConfig } from "../../config/index.js";
import { packageId, type ChatMessage, type GenerateOptions, type Generation, type LanguageModel, type TerminalTask } from "../../spec/index.js";
import { readRubrics, rubricsFor } from "./rubrics.js";
import { evolutionSettingsFromConfig } from "./settings.js";
import { attemptTerminalGeneration, type TerminalLineageMember } from "./terminal-evolution.js";
import { lineageIdFor, runEvolution } from "./lineage-runner.js";
import { SqliteStore } from "../../adapters/store/sqlite-store.js";
import { testAdmissionResources } from "../../testing/admission-resources.js";
import { terminalPackage } from "../terminal/terminal-package.js";
import { frontierEnvironments, importLineages } from "../curriculum/index.js";

const SEED = "envs/terminal-seeds/config-file";
const runtime = new TerminalJailRuntime();
const scratch = mkdtempSync(join(tmpdir(), "envforge-terminal-evolution-"));
afterAll(async () => {
  await runtime.close();
  rmSync(scratch, { recursive: true, force: true });
});

const edit = (file: string, search: string, replace: string) => `<<<<<<< SEARCH ${file}\n${search}\n=======\n${replace}\n>>>>>>> REPLACE`;

/** The tests' change: the child also needs [database] pool = 4 (the seed's check of logging.level is kept). */
const TESTS_EDIT = edit("tests/test.sh", '[ "${seen[logging.level]}" = "info" ] || fail "logging.level"', '[ "${seen[logging.level]}" = "info" ] || fail "logging.level"\n[ "${seen[database.pool]}" = "4" ] || fail "database.pool"');
const SOLVE_EDIT = edit("solution/solve.sh", "level = info", "level = info\n\n[database]\npool = 4");
const INSTRUCTION_EDIT = edit(
  "instruction.md",
  "and a section `[logging]` holding `level = info`. Keep the existing file /app/README untouched.",
  "a section `[logging]` holding `level = info`, and a section `[database]` holding `pool = 4`. Keep the existing file /app/README untouched.",
);

/**
 * A scripted model: a test double for control flow only (it replays fixed replies by role and
 * says so); the jail, the gates and the files are real.
 */
class ScriptedRoles implements LanguageModel {
  readonly id = "scripted-roles (test double)";
  modifierCalls = 0;
  async generate(messages: readonly ChatMessage[], _options: GenerateOptions): Promise<Generation> {
    const system = messages[0]?.content ?? "";
    if (system.startsWith("You are the Proposer")) {
      return { text: JSON.stringify({ summary: "add a database section the application also needs", steps: [{ scenario: "missing settings file", skill: "write an INI file" }, { scenario: "existing readme", skill: "leave files untouched" }, { scenario: "database settings", skill: "add a second section" }] }), finishReason: "stop" };
    }
    if (system.startsWith("You are the Reviewer")) return { text: "PASS", finishReason: "stop" };
    if (system.startsWith("You are the Modifier")) {
      this.modifierCalls += 1;
      // round 1 changes the tests only (the oracle then fails); round 2 changes all three files
      return { text: this.modifierCalls === 1 ? TESTS_EDIT : [INSTRUCTION_EDIT, TESTS_EDIT, SOLVE_EDIT].join("\n"), finishReason: "stop" };
    }
    if (system.startsWith("You are the Analyst")) return { text: "no steps here", finishReason: "stop" };
    throw new Error(`unexpected prompt: ${system.slice(0, 60)}`);
  }
  async close(): Promise<void> {}
}

describe("terminal rubrics", () => {
  it("rubrics/terminal-evolution.md reads as plan and child rubrics, with the direction tags", () => {
    const rubrics = readRubrics("rubrics/terminal-evolution.md");
    expect(rubrics.plan).toHaveLength(4);
    expect(rubrics.child).toHaveLength(6);
    expect(rubricsFor(rubrics.plan, "skill")).toEqual(["the new skills are rarer or harder than the ones they replace.", rubrics.plan[3]]);
    expect(rubrics.plan.join(" ")).not.toMatch(/Python/);
  });
});

describe("terminal evolution: one generation (scripted model for control flow, real jail and gates)", () => {
  it("a child whose oracle fails goes back to the Modifier with the verdict; the repaired child validates", async () => {
    const task = readHarborTask(SEED) as TerminalTask;
    const parent: TerminalLineageMember = { task, files: readTaskFiles(SEED), sequence: { steps: [{ scenario: "missing settings file", skill: "write an INI file" }, { scenario: "existing readme", skill: "leave files untouched" }], source: "model" } };
    const settings = evolutionSettingsFromConfig(parseConfig({ evolution: { direction: "length", effort: "max", planningRounds: 1, modificationRounds: 2 } }));
    const model = new ScriptedRoles();
    const result = await attemptTerminalGeneration(parent, "terminal-config-file", 1, 0, null, {
      model,
      runtime,
      pool: [],
      rubrics: { plan: [], child: [] },
      corpus: [],
      materialize: (files, generation, round) => {
        const folder = join(scratch, `g${generation}-r${round}`);
        writeTaskFolder(files, folder);
        return readHarborTask(folder);
      },
    }, settings);
    expect(result.outcome).toBe("validated");
    expect(result.modification).toHaveLength(2);
    const first = result.modification[0]?.verdicts.at(-1);
    expect(first?.status === "reject" && `${first.gate}/${first.reason}`).toBe("oracle/oracle_failed");
    expect(result.difficulty?.length).toBe(3);
    expect(result.child?.files["tests/test.sh"]).toContain("database.pool");
    expect(result.child?.sequence.steps).toHaveLength(3);
  }, 180_000);
});

describe("terminal lineages in the store (scripted model for control flow, real jail, gates and store)", () => {
  it("runEvolution evolves a terminal seed: the lineage, its validated generation and the child's task are stored, and a run imports them for the frontier", async () => {
    const dir = mkdtempSync(join(scratch, "lineage-"));
    const store = new SqliteStore(join(dir, "envforge.db"));
    const runStore = new SqliteStore(join(dir, "run.db"));
    try {
      // the lineage's seed is a copy of the shipped seed, which stays in the novelty pool: the copy's parent is left out by its digest
      cpSync(SEED, join(dir, "tasks", "config-file", "g0"), { recursive: true });
      const seed = terminalPackage(readHarborTask(join(dir, "tasks", "config-file", "g0")) as TerminalTask);
      const settings = evolutionSettingsFromConfig(parseConfig({ evolution: { generations: 1, direction: "length", effort: "max", planningRounds: 1, modificationRounds: 2 } }));
      const model = new ScriptedRoles();
      const outcomes = await runEvolution([seed], {
        model,
        sandbox: { name: "no programs", open: async () => ({ kind: "crash", message: "no environment programs here" }), close: async () => {} },
        store,
        corpus: [],
        gates: [],
        admission: testAdmissionResources(),
        rubrics: { plan: [], child: [] },
        terminal: {
          runtime,
          readFiles: readTaskFiles,
          materialize: (files, name, seedFolder) => {
            const folder = join(seedFolder, "..", name);
            writeTaskFolder(files, folder);
            return readHarborTask(folder);
          },
          pool: [readHarborTask(SEED) as TerminalTask],
          maxTurns: 12,
        },
      }, settings);
      expect(outcomes).toEqual([{ lineageId: lineageIdFor(seed), status: "done", generations: 1 }]);
      const [lineage] = store.listLineages();
      // the Analyst's reply was not a JSON array: the sequence falls back to the task's tags
      expect(lineage?.sequence.source).toBe("manifest");
      const [generation] = store.listGenerations(lineageIdFor(seed));
      expect(generation?.parentId).toBe(packageId(seed));
      expect(generation?.patch).toContain("+[ \"${seen[database.pool]}\" = \"4\" ] || fail \"database.pool\"");
      expect(generation?.admission.map((verdict) => `${verdict.gate}:${verdict.status}`)).toEqual(["executable:pass", "deterministic:pass", "oracle:pass", "negative-controls:pass", "hint:pass", "novelty:pass"]);
      const child = store.listEnvironments().find((record) => record.id === generation?.environmentId)?.package;
      expect(child?.terminal?.folder).toBe(join(dir, "tasks", "config-file", "g1-a0-r1"));
      expect(child?.manifest.maxTurns).toBe(12);
      expect(child?.manifest.provenance).toMatchObject({ origin: "evolution", parentId: packageId(seed), generation: 1 });
      const attempts = store.listEvolutionAttempts(lineageIdFor(seed));
      expect(attempts.map((attempt) => [attempt.outcome, attempt.modification.map((round) => round.form)])).toEqual([["validated", ["replace", "replace"]]]);
      // a training run imports the terminal lineage; its frontier starts at the seed
      expect(importLineages(store, runStore)).toBe(1);
      expect(frontierEnvironments(runStore).map((record) => record.id)).toEqual([packageId(seed)]);
      expect(runStore.listEnvironments().find((record) => record.id === generation?.environmentId)?.package.terminal?.tests).toContain("database.pool");
    } finally {
      store.close();
      runStore.close();
    }
  }, 240_000);
});
