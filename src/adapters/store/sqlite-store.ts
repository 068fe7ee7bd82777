import { dirname } from "node:path";
import Database from "better-sqlite3";
import { makeDirectory } from "../../support/make-directory.js";
import {
  StoreError,
  type DesignRecord,
  type EnvironmentRecord,
  type EpisodeRecord,
  type EvolutionAttemptRecord,
  type FrontierProbeRecord,
  type GenerationRecord,
  type LineageRecord,
  type RoundRecord,
  type RoundReport,
  type Store,
} from "../../spec/index.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS environments (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  origin TEXT NOT NULL,
  parent_id TEXT,
  generation INTEGER NOT NULL,
  round INTEGER,
  package TEXT NOT NULL,
  scores TEXT,
  designer_reward REAL
);
CREATE TABLE IF NOT EXISTS rounds (
  round INTEGER PRIMARY KEY,
  status TEXT NOT NULL,
  solver_phase_done INTEGER NOT NULL DEFAULT 0,
  report TEXT
);
CREATE TABLE IF NOT EXISTS designs (
  round INTEGER NOT NULL,
  idx INTEGER NOT NULL,
  prompt_hash TEXT NOT NULL,
  corpus_document_ids TEXT NOT NULL,
  completion TEXT NOT NULL,
  verdicts TEXT NOT NULL,
  environment_id TEXT,
  reward REAL NOT NULL,
  policy_version INTEGER,
  tokens TEXT,
  repairs TEXT,
  PRIMARY KEY (round, idx)
);
CREATE TABLE IF NOT EXISTS episodes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  round INTEGER NOT NULL,
  environment_id TEXT NOT NULL,
  role TEXT NOT NULL,
  hint INTEGER NOT NULL,
  policy_version INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  return REAL NOT NULL,
  won INTEGER NOT NULL,
  turns INTEGER NOT NULL,
  failure TEXT,
  episode TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS episodes_round ON episodes (round, role);
CREATE TABLE IF NOT EXISTS lineages (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  seed_id TEXT NOT NULL,
  record TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS generations (
  lineage_id TEXT NOT NULL,
  generation INTEGER NOT NULL,
  environment_id TEXT NOT NULL,
  parent_id TEXT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (lineage_id, generation)
);
CREATE TABLE IF NOT EXISTS evolution_attempts (
  lineage_id TEXT NOT NULL,
  generation INTEGER NOT NULL,
  attempt INTEGER NOT NULL,
  outcome TEXT NOT NULL,
  record TEXT NOT NULL,
  PRIMARY KEY (lineage_id, generation, attempt)
);
CREATE TABLE IF NOT EXISTS frontier_probes (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  lineage_id TEXT NOT NULL,
  round INTEGER NOT NULL,
  record TEXT NOT NULL,
  UNIQUE (lineage_id, round)
);
`;

interface EnvironmentRow {
  id: string;
  round: number | null;
  package: string;
  scores: string | null;
}
interface RoundRow {
  round: number;
  status: "running" | "done";
  solver_phase_done: number;
  report: string | null;
}
interface DesignRow {
  round: number;
  idx: number;
  prompt_hash: string;
  corpus_document_ids: string;
  completion: string;
  verdicts: string;
  environment_id: string | null;
  reward: number;
  policy_version: number | null;
  tokens: string | null;
  repairs?: string | null;
}
interface EpisodeRow {
  round: number;
  environment_id: string;
  role: "solver" | "calibration";
  hint: number;
  policy_version: number;
  episode: string;
}

/**
 * {@link Store} on one SQLite file (better-sqlite3, WAL journal). Grouped
 * writes run in transactions, so a process killed with SIGKILL leaves either
 * all or none of a design and its environment.
 *
 * @throws StoreError when the file cannot be opened or is not an envforge store
 */
export class SqliteStore implements Store {
  private readonly db: Database.Database;

  /** @param location path of the database file (`:memory:` for tests); parent folders are created */
  constructor(readonly location: string) {
    try {
      if (location !== ":memory:") makeDirectory(dirname(location));
      this.db = new Database(location);
      this.db.pragma("journal_mode = WAL");
      this.db.pragma("synchronous = NORMAL");
      this.db.exec(SCHEMA);
      this.addMissingColumns();
    } catch (error) {
      throw new StoreError(`cannot open store ${location}: ${(error as Error).message}`, { cause: error });
    }
  }

  /** Stores written before training landed lack the designs' token columns; adds them. */
  private addMissingColumns(): void {
    const columns = new Set((this.db.prepare("PRAGMA table_info(designs)").all() as { name: string }[]).map((column) => column.name));
    if (!columns.has("policy_version")) this.db.exec("ALTER TABLE designs ADD COLUMN policy_version INTEGER");
    if (!columns.has("tokens")) this.db.exec("ALTER TABLE designs ADD COLUMN tokens TEXT");
    if (!columns.has("repairs")) this.db.exec("ALTER TABLE designs ADD COLUMN repairs TEXT");
  }

  setMeta(key: string, value: unknown): void {
    this.db.prepare("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(key, JSON.stringify(value));
  }

  getMeta(key: string): unknown {
    const row = this.db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
    return row === undefined ? undefined : JSON.parse(row.value);
  }

  addEnvironment(record: EnvironmentRecord): boolean {
    const { manifest } = record.package;
    const result = this.db
      .prepare(
        `INSERT OR IGNORE INTO environments (id, name, origin, parent_id, generation, round, package, scores, designer_reward)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.id,
        manifest.name,
        manifest.provenance.origin,
        manifest.provenance.parentId,
        manifest.provenance.generation,
        record.round,
        JSON.stringify(record.package),
        record.scores === null ? null : JSON.stringify(record.scores),
        record.scores?.designerReward ?? null,
      );
    return result.changes === 1;
  }

  listEnvironments(): EnvironmentRecord[] {
    const rows = this.db.prepare("SELECT id, round, package, scores FROM environments ORDER BY seq").all() as EnvironmentRow[];
    return rows.map((row) => ({
      id: row.id,
      round: row.round,
      package: JSON.parse(row.package),
      scores: row.scores === null ? null : JSON.parse(row.scores),
    }));
  }

  beginRound(round: number): RoundRecord {
    this.db.prepare("INSERT OR IGNORE INTO rounds (round, status) VALUES (?, 'running')").run(round);
    return toRound(this.db.prepare("SELECT * FROM rounds WHERE round = ?").get(round) as RoundRow);
  }

  listRounds(): RoundRecord[] {
    return (this.db.prepare("SELECT * FROM rounds ORDER BY round").all() as RoundRow[]).map(toRound);
  }

  saveSolverPhase(round: number, episodes: readonly EpisodeRecord[]): void {
    this.db.transaction(() => {
      this.db.prepare("DELETE FROM episodes WHERE round = ? AND role = 'solver'").run(round);
      for (const episode of episodes) this.insertEpisode(episode);
      this.db.prepare("UPDATE rounds SET solver_phase_done = 1 WHERE round = ?").run(round);
    })();
  }

  listEpisodes(round: number): EpisodeRecord[] {
    const rows = this.db
      .prepare("SELECT round, environment_id, role, hint, policy_version, episode FROM episodes WHERE round = ? ORDER BY seq")
      .all(round) as EpisodeRow[];
    return rows.map((row) => ({
      round: row.round,
      environmentId: row.environment_id,
      role: row.role,
      hint: row.hint === 1,
      policyVersion: row.policy_version,
      episode: JSON.parse(row.episode),
    }));
  }

  saveDesign(design: DesignRecord, admitted?: { environment: EnvironmentRecord; episodes: readonly EpisodeRecord[] }): void {
    this.db.transaction(() => {
      const inserted = this.db
        .prepare(
          `INSERT OR IGNORE INTO designs (round, idx, prompt_hash, corpus_document_ids, completion, verdicts, environment_id, reward, policy_version, tokens, repairs)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          design.round,
          design.index,
          design.promptHash,
          JSON.stringify(design.corpusDocumentIds),
          design.completion,
          JSON.stringify(design.verdicts),
          design.environmentId,
          design.reward,
          design.policyVersion ?? null,
          design.tokens === undefined ? null : JSON.stringify(design.tokens),
          design.repairs === undefined || design.repairs.length === 0 ? null : JSON.stringify(design.repairs),
        );
      if (inserted.changes === 0 || admitted === undefined) return;
      this.addEnvironment(admitted.environment);
      for (const episode of admitted.episodes) this.insertEpisode(episode);
    })();
  }

  listDesigns(round: number): DesignRecord[] {
    const rows = this.db.prepare("SELECT * FROM designs WHERE round = ? ORDER BY idx").all(round) as DesignRow[];
    return rows.map((row) => ({
      round: row.round,
      index: row.idx,
      promptHash: row.prompt_hash,
      corpusDocumentIds: JSON.parse(row.corpus_document_ids),
      completion: row.completion,
      verdicts: JSON.parse(row.verdicts),
      environmentId: row.environment_id,
      reward: row.reward,
      ...(row.policy_version === null ? {} : { policyVersion: row.policy_version }),
      ...(row.tokens === null ? {} : { tokens: JSON.parse(row.tokens) }),
      ...(row.repairs === null || row.repairs === undefined ? {} : { repairs: JSON.parse(row.repairs) }),
    }));
  }

  finishRound(round: number, report: RoundReport): void {
    this.db.prepare("UPDATE rounds SET status = 'done', report = ? WHERE round = ?").run(JSON.stringify(report), round);
  }

  close(): void {
    this.db.close();
  }

  addLineage(record: LineageRecord): boolean {
    const result = this.db.prepare("INSERT OR IGNORE INTO lineages (id, seed_id, record) VALUES (?, ?, ?)").run(record.id, record.seedId, JSON.stringify(record));
    return result.changes === 1;
  }

  listLineages(): LineageRecord[] {
    return records<LineageRecord>(this.db.prepare("SELECT record FROM lineages ORDER BY seq").all());
  }

  saveGeneration(generation: GenerationRecord, environment: EnvironmentRecord): boolean {
    return this.db.transaction(() => {
      const inserted = this.db
        .prepare("INSERT OR IGNORE INTO generations (lineage_id, generation, environment_id, parent_id, record) VALUES (?, ?, ?, ?, ?)")
        .run(generation.lineageId, generation.generation, generation.environmentId, generation.parentId, JSON.stringify(generation));
      if (inserted.changes === 0) return false;
      this.addEnvironment(environment);
      return true;
    })();
  }

  listGenerations(lineageId: string): GenerationRecord[] {
    return records<GenerationRecord>(this.db.prepare("SELECT record FROM generations WHERE lineage_id = ? ORDER BY generation").all(lineageId));
  }

  saveEvolutionAttempt(attempt: EvolutionAttemptRecord): void {
    this.db
      .prepare("INSERT OR IGNORE INTO evolution_attempts (lineage_id, generation, attempt, outcome, record) VALUES (?, ?, ?, ?, ?)")
      .run(attempt.lineageId, attempt.generation, attempt.attempt, attempt.outcome, JSON.stringify(attempt));
  }

  listEvolutionAttempts(lineageId: string): EvolutionAttemptRecord[] {
    return records<EvolutionAttemptRecord>(
      this.db.prepare("SELECT record FROM evolution_attempts WHERE lineage_id = ? ORDER BY generation, attempt").all(lineageId),
    );
  }

  saveFrontierProbe(probe: FrontierProbeRecord): void {
    this.db.prepare("INSERT OR IGNORE INTO frontier_probes (lineage_id, round, record) VALUES (?, ?, ?)").run(probe.lineageId, probe.round, JSON.stringify(probe));
  }

  listFrontierProbes(): FrontierProbeRecord[] {
    return records<FrontierProbeRecord>(this.db.prepare("SELECT record FROM frontier_probes ORDER BY seq").all());
  }

  private insertEpisode(record: EpisodeRecord): void {
    const { episode } = record;
    this.db
      .prepare(
        `INSERT INTO episodes (round, environment_id, role, hint, policy_version, seed, return, won, turns, failure, episode)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.round,
        record.environmentId,
        record.role,
        record.hint ? 1 : 0,
        record.policyVersion,
        episode.seed,
        episode.return,
        episode.won ? 1 : 0,
        episode.turns.length,
        episode.failure ? episode.failure.kind : null,
        JSON.stringify(episode),
      );
  }
}

function records<T>(rows: unknown[]): T[] {
  return (rows as { record: string }[]).map((row) => JSON.parse(row.record) as T);
}

function toRound(row: RoundRow): RoundRecord {
  return {
    round: row.round,
    status: row.status,
    solverPhaseDone: row.solver_phase_done === 1,
    report: row.report === null ? null : JSON.parse(row.report),
  };
}
