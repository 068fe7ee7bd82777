import { sql, type CompiledQuery, type Kysely } from "kysely";
import type {
  DesignRecord,
  EnvironmentRecord,
  EpisodeRecord,
  EvolutionAttemptRecord,
  FrontierProbeRecord,
  GenerationRecord,
  LineageRecord,
  RoundRecord,
  RoundReport,
  Store,
} from "../../spec/index.js";
import type { SqlConnection } from "./sql-connection.js";
import { queryBuilder } from "./sql-dialects.js";
import { migrate } from "./store-schema.js";
import type { StoreTables } from "./store-tables.js";

/** What an insert that may meet its row already stored returns: one row when it inserted. */
const INSERTED = sql<number>`1`.as("inserted");

/**
 * {@link Store} on a {@link SqlConnection}: the same queries, compiled by Kysely for SQLite or
 * PostgreSQL, so every backend keeps the same contract (`store.contract.ts` runs against each).
 * Grouped writes run in one transaction, so a process killed at any point leaves either all or
 * none of a design and its environment; inserts that may meet their row already stored (a resumed
 * run, a job that ran twice, two workers racing) are `ON CONFLICT DO NOTHING`, so each result is
 * written once. The schema is migrated on open ({@link migrate}).
 *
 * @throws StoreError when the store cannot be opened, was written by a newer envforge, or a write fails
 */
export class SqlStore implements Store {
  private readonly db: Kysely<StoreTables>;

  /**
   * @param connection the open connection; the store closes it in {@link SqlStore.close}
   * @param location where the store lives, for messages (a file path, or a URL without its password)
   */
  constructor(
    private readonly connection: SqlConnection,
    readonly location: string,
  ) {
    this.db = queryBuilder(connection.dialect);
    try {
      migrate(connection, "run");
    } catch (error) {
      connection.close();
      throw error;
    }
  }

  setMeta(key: string, value: unknown): void {
    const text = JSON.stringify(value);
    this.execute(this.db.insertInto("meta").values({ key, value: text }).onConflict((conflict) => conflict.column("key").doUpdateSet({ value: text })));
  }

  getMeta(key: string): unknown {
    const row = this.rows(this.db.selectFrom("meta").select("value").where("key", "=", key))[0];
    return row === undefined ? undefined : JSON.parse(row.value);
  }

  claimMeta(key: string, value: unknown): boolean {
    return this.inserted(this.db.insertInto("meta").values({ key, value: JSON.stringify(value) }).onConflict((conflict) => conflict.doNothing()).returning(INSERTED));
  }

  addEnvironment(record: EnvironmentRecord): boolean {
    const { manifest } = record.package;
    return this.inserted(
      this.db
        .insertInto("environments")
        .values({
          id: record.id,
          name: manifest.name,
          origin: manifest.provenance.origin,
          parent_id: manifest.provenance.parentId,
          generation: manifest.provenance.generation,
          round: record.round,
          package: JSON.stringify(record.package),
          scores: record.scores === null ? null : JSON.stringify(record.scores),
          designer_reward: record.scores?.designerReward ?? null,
        })
        .onConflict((conflict) => conflict.doNothing())
        .returning(INSERTED),
    );
  }

  listEnvironments(): EnvironmentRecord[] {
    return this.rows(this.db.selectFrom("environments").select(["id", "round", "package", "scores"]).orderBy("seq")).map((row) => ({
      id: row.id,
      round: row.round,
      package: JSON.parse(row.package),
      scores: row.scores === null ? null : JSON.parse(row.scores),
    }));
  }

  beginRound(round: number): RoundRecord {
    this.execute(this.db.insertInto("rounds").values({ round, status: "running", solver_phase_done: 0, report: null }).onConflict((conflict) => conflict.doNothing()));
    return toRound(this.rows(this.db.selectFrom("rounds").selectAll().where("round", "=", round))[0]!);
  }

  listRounds(): RoundRecord[] {
    return this.rows(this.db.selectFrom("rounds").selectAll().orderBy("round")).map(toRound);
  }

  saveSolverPhase(round: number, episodes: readonly EpisodeRecord[]): void {
    this.connection.transaction(() => {
      // two writers of one round's Solver phase (two orchestrators resuming one run at once) take turns on its row;
      // SQLite's write transaction already excludes every other writer
      if (this.connection.dialect === "postgres") this.rows(this.db.selectFrom("rounds").select("round").where("round", "=", round).forUpdate());
      this.execute(this.db.deleteFrom("episodes").where("round", "=", round).where("role", "=", "solver"));
      for (const episode of episodes) this.insertEpisode(episode);
      this.execute(this.db.updateTable("rounds").set({ solver_phase_done: 1 }).where("round", "=", round));
    });
  }

  listEpisodes(round: number): EpisodeRecord[] {
    return this.rows(
      this.db.selectFrom("episodes").select(["round", "environment_id", "role", "hint", "policy_version", "episode"]).where("round", "=", round).orderBy("seq"),
    ).map((row) => ({
      round: row.round,
      environmentId: row.environment_id,
      role: row.role,
      hint: row.hint === 1,
      policyVersion: row.policy_version,
      episode: JSON.parse(row.episode),
    }));
  }

  saveDesign(design: DesignRecord, admitted?: { environment: EnvironmentRecord; episodes: readonly EpisodeRecord[] }): void {
    this.connection.transaction(() => {
      const inserted = this.inserted(
        this.db
          .insertInto("designs")
          .values({
            round: design.round,
            idx: design.index,
            prompt_hash: design.promptHash,
            corpus_document_ids: JSON.stringify(design.corpusDocumentIds),
            completion: design.completion,
            verdicts: JSON.stringify(design.verdicts),
            environment_id: design.environmentId,
            reward: design.reward,
            policy_version: design.policyVersion ?? null,
            tokens: design.tokens === undefined ? null : JSON.stringify(design.tokens),
            repairs: design.repairs === undefined || design.repairs.length === 0 ? null : JSON.stringify(design.repairs),
          })
          .onConflict((conflict) => conflict.doNothing())
          .returning(INSERTED),
      );
      if (!inserted || admitted === undefined) return;
      this.addEnvironment(admitted.environment);
      for (const episode of admitted.episodes) this.insertEpisode(episode);
    });
  }

  listDesigns(round: number): DesignRecord[] {
    return this.rows(this.db.selectFrom("designs").selectAll().where("round", "=", round).orderBy("idx")).map((row) => ({
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
      ...(row.repairs === null ? {} : { repairs: JSON.parse(row.repairs) }),
    }));
  }

  finishRound(round: number, report: RoundReport): void {
    this.execute(this.db.updateTable("rounds").set({ status: "done", report: JSON.stringify(report) }).where("round", "=", round));
  }

  close(): void {
    this.connection.close();
  }

  addLineage(record: LineageRecord): boolean {
    return this.inserted(
      this.db
        .insertInto("lineages")
        .values({ id: record.id, seed_id: record.seedId, record: JSON.stringify(record) })
        .onConflict((conflict) => conflict.doNothing())
        .returning(INSERTED),
    );
  }

  listLineages(): LineageRecord[] {
    return records(this.rows(this.db.selectFrom("lineages").select("record").orderBy("seq")));
  }

  saveGeneration(generation: GenerationRecord, environment: EnvironmentRecord): boolean {
    return this.connection.transaction(() => {
      const inserted = this.inserted(
        this.db
          .insertInto("generations")
          .values({
            lineage_id: generation.lineageId,
            generation: generation.generation,
            environment_id: generation.environmentId,
            parent_id: generation.parentId,
            record: JSON.stringify(generation),
          })
          .onConflict((conflict) => conflict.doNothing())
          .returning(INSERTED),
      );
      if (inserted) this.addEnvironment(environment);
      return inserted;
    });
  }

  listGenerations(lineageId: string): GenerationRecord[] {
    return records(this.rows(this.db.selectFrom("generations").select("record").where("lineage_id", "=", lineageId).orderBy("generation")));
  }

  saveEvolutionAttempt(attempt: EvolutionAttemptRecord): void {
    this.execute(
      this.db
        .insertInto("evolution_attempts")
        .values({ lineage_id: attempt.lineageId, generation: attempt.generation, attempt: attempt.attempt, outcome: attempt.outcome, record: JSON.stringify(attempt) })
        .onConflict((conflict) => conflict.doNothing()),
    );
  }

  listEvolutionAttempts(lineageId: string): EvolutionAttemptRecord[] {
    return records(this.rows(this.db.selectFrom("evolution_attempts").select("record").where("lineage_id", "=", lineageId).orderBy("generation").orderBy("attempt")));
  }

  saveFrontierProbe(probe: FrontierProbeRecord): void {
    this.execute(
      this.db
        .insertInto("frontier_probes")
        .values({ lineage_id: probe.lineageId, round: probe.round, record: JSON.stringify(probe) })
        .onConflict((conflict) => conflict.doNothing()),
    );
  }

  listFrontierProbes(): FrontierProbeRecord[] {
    return records(this.rows(this.db.selectFrom("frontier_probes").select("record").orderBy("seq")));
  }

  private insertEpisode(record: EpisodeRecord): void {
    const { episode } = record;
    this.execute(
      this.db.insertInto("episodes").values({
        round: record.round,
        environment_id: record.environmentId,
        role: record.role,
        hint: record.hint ? 1 : 0,
        policy_version: record.policyVersion,
        seed: episode.seed,
        return: episode.return,
        won: episode.won ? 1 : 0,
        turns: episode.turns.length,
        failure: episode.failure ? episode.failure.kind : null,
        episode: JSON.stringify(episode),
      }),
    );
  }

  private rows<Row>(query: { compile(): CompiledQuery<Row> }): Row[] {
    return this.connection.rows<Row>(query.compile());
  }

  private execute(query: { compile(): CompiledQuery }): void {
    this.connection.execute(query.compile());
  }

  private inserted(query: { compile(): CompiledQuery }): boolean {
    return this.connection.rows(query.compile()).length === 1;
  }
}

function records<T>(rows: readonly { record: string }[]): T[] {
  return rows.map((row) => JSON.parse(row.record) as T);
}

function toRound(row: StoreTables["rounds"]): RoundRecord {
  return {
    round: row.round,
    status: row.status,
    solverPhaseDone: row.solver_phase_done === 1,
    report: row.report === null ? null : JSON.parse(row.report),
  };
}
