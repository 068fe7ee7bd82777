import { createHash } from "node:crypto";
import { cpSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { createTwoFilesPatch } from "diff";
import { SqliteStore } from "../adapters/store/index.js";
import { packageId, type EnvPackage } from "../spec/index.js";
import { PARENT, SUM_ENV, SUM_ORACLE } from "./evolution-fixtures.js";

/** The real two-round run the dashboard tests read (fixtures/dashboard-run, see its README). */
export const DASHBOARD_RUN_FIXTURE = fileURLToPath(new URL("../../fixtures/dashboard-run/", import.meta.url));

/** Copies the fixture run folder (its store, metrics and report) to `target`; tests that write use the copy. */
export function copyRunFixture(target: string): string {
  mkdirSync(target, { recursive: true });
  for (const name of ["envforge.db", "metrics.jsonl", "report.json"]) cpSync(join(DASHBOARD_RUN_FIXTURE, name), join(target, name));
  return target;
}

/** Every file of a folder tree with its size, modification time and sha256: equal before and after means nothing was written. */
export function folderState(root: string): Record<string, string> {
  const state: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      const stat = statSync(path);
      if (stat.isDirectory()) walk(path);
      else state[path] = `${stat.size}:${stat.mtimeMs}:${createHash("sha256").update(readFileSync(path)).digest("hex")}`;
    }
  };
  walk(root);
  return state;
}

/**
 * A store as the first release wrote it: the core tables without `designs.policy_version`,
 * `tokens` and `repairs`, and without the lineage tables; one finished round and one design.
 */
export function writeOlderSchemaStore(folder: string): void {
  mkdirSync(folder, { recursive: true });
  const db = new Database(join(folder, "envforge.db"));
  db.exec(`
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE environments (seq INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, name TEXT NOT NULL, origin TEXT NOT NULL, parent_id TEXT, generation INTEGER NOT NULL, round INTEGER, package TEXT NOT NULL, scores TEXT, designer_reward REAL);
    CREATE TABLE rounds (round INTEGER PRIMARY KEY, status TEXT NOT NULL, solver_phase_done INTEGER NOT NULL DEFAULT 0, report TEXT);
    CREATE TABLE designs (round INTEGER NOT NULL, idx INTEGER NOT NULL, prompt_hash TEXT NOT NULL, corpus_document_ids TEXT NOT NULL, completion TEXT NOT NULL, verdicts TEXT NOT NULL, environment_id TEXT, reward REAL NOT NULL, PRIMARY KEY (round, idx));
    CREATE TABLE episodes (seq INTEGER PRIMARY KEY AUTOINCREMENT, round INTEGER NOT NULL, environment_id TEXT NOT NULL, role TEXT NOT NULL, hint INTEGER NOT NULL, policy_version INTEGER NOT NULL, seed INTEGER NOT NULL, return REAL NOT NULL, won INTEGER NOT NULL, turns INTEGER NOT NULL, failure TEXT, episode TEXT NOT NULL);
  `);
  db.prepare("INSERT INTO meta VALUES ('config', ?)").run(JSON.stringify({ rounds: 1, model: { spec: "embedded" }, trainer: { backend: "noop" } }));
  const report = { round: 1, proposed: 1, admitted: 0, rejected: { unparseable: 1 }, solver: { episodes: 0, winRateNoHint: null, winRateHint: null }, designer: { meanReward: -1 }, trainer: { name: "noop", policyVersion: 0, datums: 0 }, diagnostics: {}, errors: {}, seconds: 3 };
  db.prepare("INSERT INTO rounds VALUES (1, 'done', 1, ?)").run(JSON.stringify(report));
  db.prepare("INSERT INTO designs VALUES (1, 0, 'hash', '[]', 'no code here', ?, NULL, -1)").run(JSON.stringify([{ status: "reject", gate: "parse", reason: "unparseable", message: "no code block" }]));
  db.close();
}

/** A folder whose `envforge.db` is not an SQLite file. */
export function writeCorruptStore(folder: string): void {
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, "envforge.db"), "this is not a database, just text in a file named envforge.db\n".repeat(40));
}

/** A valid SQLite file without envforge's tables. */
export function writeForeignStore(folder: string): void {
  mkdirSync(folder, { recursive: true });
  const db = new Database(join(folder, "envforge.db"));
  db.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hello')");
  db.close();
}

/**
 * An evolution folder written through the store's API: the seed {@link PARENT}, a lineage on it, one
 * validated generation (the {@link SUM_ENV} child with its plan and unified patch), one rejected
 * attempt and one frontier probe. Returns the child's environment id.
 */
export function writeEvolutionFolder(folder: string): string {
  mkdirSync(folder, { recursive: true });
  const store = new SqliteStore(join(folder, "envforge.db"));
  try {
    const seedId = packageId(PARENT);
    store.addEnvironment({ id: seedId, package: PARENT, round: null, scores: null });
    const child: EnvPackage = {
      manifest: { ...PARENT.manifest, name: "add-two", title: "Add two numbers", description: "Reply with the sum.", skills: ["addition"], scenario: "arithmetic quiz", provenance: { ...PARENT.manifest.provenance, origin: "evolution", parentId: seedId, generation: 1 } },
      envSource: SUM_ENV,
      oracleSource: SUM_ORACLE,
    };
    const childId = packageId(child);
    const lineageId = `lin-answer-42-${seedId.slice(-8)}`;
    const sequence = { steps: [{ scenario: "quiz", skill: "recall" }], source: "manifest" as const };
    store.addLineage({ id: lineageId, seedId, seedName: "answer-42", seed: PARENT, sequence, difficulty: { length: 1, scenarioSurprise: 0.7, skillSurprise: 0.7, total: 2.4 }, createdAt: "2026-11-29T00:00:00.000Z" });
    const plan = { summary: "replace recall by addition of two seeded numbers", steps: [{ scenario: "arithmetic quiz", skill: "addition" }] };
    const patch = createTwoFilesPatch("env.py", "env.py", PARENT.envSource, SUM_ENV);
    store.saveGeneration(
      {
        lineageId,
        generation: 1,
        environmentId: childId,
        parentId: seedId,
        direction: "skill",
        effort: "high",
        plan,
        patch,
        validations: [{ status: "pass", gate: "oracle", evidence: { seeds: 3 } }],
        admission: [{ status: "pass", gate: "executable" }],
        sequence: { steps: plan.steps, source: "plan" },
        difficulty: { length: 1, scenarioSurprise: 1.1, skillSurprise: 1.4, total: 3.5 },
        createdAt: "2026-11-29T00:01:00.000Z",
      },
      { id: childId, package: child, round: null, scores: null },
    );
    store.saveEvolutionAttempt({ lineageId, generation: 1, attempt: 0, direction: "skill", effort: "high", outcome: "plan_rejected", planning: [{ completion: "a plan", plan: null, review: { status: "reject", gate: "rubric", reason: "too_easy", message: "the plan changes nothing" } }], modification: [], admission: [], seconds: 4.2 });
    store.saveEvolutionAttempt({ lineageId, generation: 1, attempt: 1, direction: "skill", effort: "high", outcome: "validated", planning: [], modification: [], admission: [], seconds: 9.5 });
    store.saveFrontierProbe({ lineageId, generation: 1, round: 1, rollouts: 8, wins: 6, released: true });
    return childId;
  } finally {
    store.close();
  }
}
