import { EnvforgeError } from "../../spec/index.js";

/**
 * The TensorBoard writer (tensorboardX in the trainer's Python) failed or timed out: code
 * `tensorboard_write_failed`. Nothing was replaced: the previous export, if any, is still there.
 * `retryable` is true for a timeout (a loaded machine), false for a writer that exited with an error.
 */
export class EventWriteError extends EnvforgeError {
  /**
   * @param message names the event file's folder and the writer's last stderr lines
   * @param options `retryable` (default false) and an optional `cause`
   */
  constructor(message: string, options: { retryable?: boolean; cause?: unknown } = {}) {
    super("tensorboard_write_failed", message, options);
  }
}
