/**
 * Run stores and eval stores: one SQL implementation each ({@link SqlStore}, {@link SqlEvalStore})
 * over SQLite (the embedded default) or PostgreSQL (shared by many orchestrators and workers).
 * @module
 */
export { SqlStore } from "./sql-store.js";
export { SqlEvalStore } from "./sql-eval-store.js";
export { SqliteStore } from "./sqlite-store.js";
export { SqliteEvalStore } from "./sqlite-eval-store.js";
export { PostgresStore } from "./postgres-store.js";
export { PostgresEvalStore } from "./postgres-eval-store.js";
export { PostgresConnection, redactedUrl, withoutPassword } from "./postgres-connection.js";
export { SqliteConnection } from "./sqlite-connection.js";
export type { SqlConnection, SqlDialect } from "./sql-connection.js";
export { startThrowawayCluster, type ThrowawayCluster } from "./throwaway-cluster.js";
export { migrate, newestSchemaVersion, type StoreComponent } from "./store-schema.js";
export { queryBuilder } from "./sql-dialects.js";
export type { StoreRow, StoreTables } from "./store-tables.js";
export {
  describeRunStore,
  holdsRunStore,
  isPostgresUrl,
  openRunFolderStore,
  openRunStore,
  openStoreAt,
  runSchema,
  runStored,
  runStoreLocation,
  STORE_POINTER_FILE,
  type RunStoreLocation,
} from "./run-folder-store.js";
