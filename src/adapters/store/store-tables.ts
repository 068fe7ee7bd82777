import type { Generated, Selectable } from "kysely";

/**
 * Rows of the store's tables as the database holds them (Kysely's table types). JSON values are
 * TEXT in both dialects and booleans INTEGER 0/1, so one store reads both the same way.
 */
export interface StoreTables {
  envforge_schema: { component: string; version: number };
  meta: { key: string; value: string };
  environments: {
    seq: Generated<number>;
    id: string;
    name: string;
    origin: string;
    parent_id: string | null;
    generation: number;
    round: number | null;
    package: string;
    scores: string | null;
    designer_reward: number | null;
  };
  rounds: { round: number; status: "running" | "done"; solver_phase_done: number; report: string | null };
  designs: {
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
    repairs: string | null;
  };
  episodes: {
    seq: Generated<number>;
    round: number;
    environment_id: string;
    role: "solver" | "calibration";
    hint: number;
    policy_version: number;
    seed: number;
    return: number;
    won: number;
    turns: number;
    failure: string | null;
    episode: string;
  };
  lineages: { seq: Generated<number>; id: string; seed_id: string; record: string };
  generations: { lineage_id: string; generation: number; environment_id: string; parent_id: string; record: string };
  evolution_attempts: { lineage_id: string; generation: number; attempt: number; outcome: string; record: string };
  frontier_probes: { seq: Generated<number>; lineage_id: string; round: number; record: string };
  evals: {
    seq: Generated<number>;
    id: string;
    model: string;
    checkpoint: string | null;
    suite_version: string;
    plan: string;
    created_at: string;
    finished_at: string | null;
  };
  job_results: { kind: string; key: string; result: string; seconds: number; worker: string; stored_at: string };
  eval_items: {
    eval_id: string;
    suite: string;
    task: string;
    idx: number;
    bucket: string | null;
    seed: number;
    score: number;
    won: number;
    error_code: string | null;
    result: string;
    seq: number;
  };
}

/** A row of `table` as a query returns it (generated columns as plain values). */
export type StoreRow<Table extends keyof StoreTables> = Selectable<StoreTables[Table]>;
