import type { Config } from "../config/index.js";
import type { AdmissionResources } from "../core/admission/index.js";
import { readCorpus, readRubric } from "../adapters/corpus/index.js";
import { PythonInspector } from "../adapters/python-inspector/index.js";

/**
 * The run-long admission resources named by `config.admission`: the Python
 * source inspector, an empty fingerprint cache, the benchmark texts
 * (`benchmarkPath`, none when null) and the rubric (`rubricPath`, the shipped one when null).
 * @throws CorpusError when the benchmark set or the rubric cannot be read
 */
export function admissionResources(config: Config, benchmarkPath: string | null = config.admission.benchmarkPath): AdmissionResources {
  return {
    inspector: new PythonInspector(),
    fingerprints: new Map(),
    benchmarkTexts: benchmarkPath === null ? [] : readCorpus(benchmarkPath),
    rubric: readRubric(config.admission.rubricPath),
  };
}
