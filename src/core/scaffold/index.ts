/**
 * The envforge scaffold: an environment format small models can write (the
 * Designer writes `generate`, `render`, `solve`; envforge supplies the class and
 * the oracle). Below both `selfplay/` (which parses designs) and `admission/`
 * (which compares only the authored part for novelty).
 */
export { SCAFFOLD_ENVIRONMENT, SCAFFOLD_MARKER, SCAFFOLD_ORACLE } from "./template.js";
export { SCAFFOLD_FUNCTIONS, authoredSource, expandScaffold, isScaffoldOracle, isScaffoldSource, missingScaffoldFunctions } from "./expand-scaffold.js";
export { readModuleConstants, type PythonLiteral } from "./module-constants.js";
export { SCAFFOLD_GRAMMAR } from "./grammar.js";
