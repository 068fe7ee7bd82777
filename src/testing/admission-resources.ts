import { readRubric } from "../adapters/corpus/index.js";
import { PythonInspector } from "../adapters/python-inspector/index.js";
import type { AdmissionResources } from "../core/admission/index.js";

/** Run-long admission resources for tests: a real source inspector, an empty fingerprint cache, no benchmark texts, the shipped rubric. */
export function testAdmissionResources(): AdmissionResources {
  return { inspector: new PythonInspector(), fingerprints: new Map(), benchmarkTexts: [], rubric: readRubric(null) };
}
