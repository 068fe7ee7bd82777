import type { StoreRow } from "../adapters/store/store-tables.js";
import type { DesignAttempt, DesignRecord, Verdict } from "../spec/index.js";
import type { RunFolder } from "./run-folders.js";
import { parseColumn, readStoreSchema } from "./store-schema.js";
import { withStoreSnapshot } from "./store-snapshot.js";

/** One Designer completion, parsed or not, with what stopped it: the store's {@link DesignRecord} without its training tokens. */
export interface DesignView extends Omit<DesignRecord, "tokens" | "policyVersion" | "repairs"> {
  /** The rejecting verdict that stopped the design, or null when it was admitted. */
  readonly stoppedBy: Verdict | null;
  /** Policy version the completion was sampled with; null in stores written before training landed. */
  readonly policyVersion: number | null;
  /** Rejected attempts before `completion`, oldest first (repair turns). */
  readonly repairs: readonly DesignAttempt[];
}

/**
 * Every design of the run in `folder`, by round then index (token columns are left out: they are
 * for training, not reading).
 * @throws StoreProblemError when the store cannot be shown
 */
export function readDesigns(folder: RunFolder): DesignView[] {
  return withStoreSnapshot(folder.storePath, ({ db }) => {
    const schema = readStoreSchema(db, folder.storePath);
    const optional = ["policy_version", "repairs"].filter((column) => schema.designColumns.has(column));
    const rows = db
      .prepare(`SELECT round, idx, prompt_hash, corpus_document_ids, completion, verdicts, environment_id, reward${optional.map((column) => `, ${column}`).join("")} FROM designs ORDER BY round, idx`)
      // stores written before training landed lack the optional columns
      .all() as (Omit<StoreRow<"designs">, "policy_version" | "repairs" | "tokens"> & Partial<Pick<StoreRow<"designs">, "policy_version" | "repairs">>)[];
    return rows.map((row) => {
      const verdicts = parseColumn<Verdict[]>(row.verdicts, []);
      const last = verdicts.at(-1);
      return {
        round: row.round,
        index: row.idx,
        promptHash: row.prompt_hash,
        corpusDocumentIds: parseColumn<string[]>(row.corpus_document_ids, []),
        completion: row.completion,
        verdicts,
        stoppedBy: row.environment_id === null ? (verdicts.find((verdict) => verdict.status === "reject") ?? last ?? null) : null,
        environmentId: row.environment_id,
        reward: row.reward,
        policyVersion: row.policy_version ?? null,
        repairs: parseColumn<DesignAttempt[]>(row.repairs, []),
      };
    });
  });
}
