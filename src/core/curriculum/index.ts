/**
 * Curriculum: which environments, and which levels of them, training samples
 * from. One mechanism on two axes (`ladder.ts`): the frontier scheduler
 * (environment evolution) probes each lineage at its frontier and releases the
 * next generation once the Solver wins enough; the level controller (RLVE)
 * keeps a window of levels per environment and raises it once the Solver's
 * accuracy at its top level is high enough. Used by the self-play loop
 * (`solver.sampling: "frontier"`, config `levels`), the environment server's
 * catalog and the import of evolved lineages into a run. Below both
 * `selfplay/` and `evolution/`; imports neither.
 * @module
 */
export * from "./frontier-scheduler.js";
export * from "./ladder.js";
export * from "./level-controller.js";
