/**
 * Export of a run's per-step metrics to TensorBoard event files (`envforge export tensorboard`,
 * and live during `envforge run` with `metrics.tensorboard`).
 * @module
 */
export { exportTensorBoard, DEFAULT_TENSORBOARD_FOLDER, EVENT_FILE_SUFFIX, type TensorBoardExport, type TensorBoardExportOptions } from "./tensorboard-export.js";
export { scalarSeries, type ScalarPoint, type ScalarSeries, type ScalarSeriesInput, type SkippedCounts } from "./scalar-series.js";
export { writeEventFile, EVENT_WRITER_SCRIPT, TRAINER_PYTHON, type EventFileWriterOptions } from "./event-file-writer.js";
export { EventWriteError } from "./event-write-error.js";
