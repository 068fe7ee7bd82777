import { EnvforgeError } from "../spec/index.js";

/**
 * What is wrong with a run's store as the dashboard sees it: `missing` (no file), `unreadable`
 * (the file cannot be read), `corrupt` (not an SQLite database, or damaged), `locked` (another
 * process holds a lock past the wait), `schema` (an SQLite file without envforge's tables).
 */
export type StoreProblem = "missing" | "unreadable" | "corrupt" | "locked" | "schema";

/**
 * A run's store cannot be shown. The dashboard shows `message` on that run's page and keeps
 * serving every other run; `retryable` is true for `locked` (the next update tries again).
 */
export class StoreProblemError extends EnvforgeError {
  readonly problem: StoreProblem;

  /**
   * @param problem what is wrong
   * @param message names the file and the cause
   */
  constructor(problem: StoreProblem, message: string, options: { cause?: unknown } = {}) {
    super(`dashboard_store_${problem}`, message, { retryable: problem === "locked", cause: options.cause });
    this.problem = problem;
  }
}
