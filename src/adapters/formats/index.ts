/**
 * Export formats (design map: formats at the edges, one interface): installable Python packages of
 * an environment for other ecosystems, each carrying the program, oracle, manifest and provenance
 * and a standard-library runtime (`envforge_episode.py`) that plays it locally or in an `envforge serve`.
 * @module
 */
import type { ExportFormat } from "../../spec/index.js";
import { gymnasiumFormat } from "./gymnasium-format.js";
import { harborFormat } from "./harbor-format.js";
import { openEnvFormat } from "./openenv-format.js";
import { verifiersFormat } from "./verifiers-format.js";

export { gymnasiumFormat, gymnasiumId } from "./gymnasium-format.js";
export { HARBOR_SEED, harborFormat, harborTaskName } from "./harbor-format.js";
export { openEnvFormat, openEnvNames } from "./openenv-format.js";
export { verifiersFormat, verifiersTasksetId } from "./verifiers-format.js";
export { provenanceDocument, pythonName, RUNTIME_FILE } from "./python-package.js";

/** Every export format by its `--format` name. */
export const EXPORT_FORMATS: Readonly<Record<string, ExportFormat>> = {
  [gymnasiumFormat.name]: gymnasiumFormat,
  [harborFormat.name]: harborFormat,
  [openEnvFormat.name]: openEnvFormat,
  [verifiersFormat.name]: verifiersFormat,
};
