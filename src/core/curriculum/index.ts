/**
 * Curriculum: which environments training samples from. The frontier
 * scheduler (environment evolution) probes each lineage at its frontier and
 * releases the next generation once the Solver wins enough; used by the
 * self-play loop (`solver.sampling: "frontier"`), the environment server's
 * catalog and the import of evolved lineages into a run. Below both
 * `selfplay/` and `evolution/`; imports neither.
 * @module
 */
export * from "./frontier-scheduler.js";
