/**
 * The dashboard (`envforge dashboard`): a local web page over run and evolution folders, read-only
 * on their stores, updating live while a run writes.
 * @module
 */
export { startDashboardServer, CONTENT_SECURITY_POLICY, type DashboardServer, type DashboardServerOptions } from "./dashboard-server.js";
export { discoverRunFolders, FOLDER_FILES, type RunFolder } from "./run-folders.js";
export { openStoreSnapshot, withStoreSnapshot, type SnapshotMode, type StoreSnapshot, type SnapshotOptions } from "./store-snapshot.js";
export { StoreProblemError, type StoreProblem } from "./store-problem.js";
export { readRunSummary, readRunDetail, type RunDetail, type RunStatus, type RunSummary, type RoundView, type EnvironmentListItem } from "./run-overview.js";
export { readEnvironmentDetail, type EnvironmentDetail, type EnvironmentEpisode, type EnvironmentRelative } from "./environment-detail.js";
export { readDesigns, type DesignView } from "./design-list.js";
export { readLineages, type LineageView } from "./lineage-tree.js";
export { readMetricsLog, type MetricsLog } from "./metrics-log.js";
export {
  exportTensorBoard,
  scalarSeries,
  EventWriteError,
  DEFAULT_TENSORBOARD_FOLDER,
  type TensorBoardExport,
  type TensorBoardExportOptions,
  type ScalarPoint,
  type ScalarSeries,
  type SkippedCounts,
} from "./tensorboard/index.js";
