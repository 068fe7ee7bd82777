/**
 * Trainer backends.
 * @module
 */
export { NoopTrainer } from "./noop-trainer.js";
