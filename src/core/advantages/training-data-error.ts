import { EnvforgeError } from "../../spec/index.js";

/**
 * Training data handed to the advantage or datum functions is inconsistent
 * (arrays of different lengths, a policy segment without logprobs, a
 * non-finite value). A programming error of the caller, never of untrusted input.
 */
export class TrainingDataError extends EnvforgeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super("training_data_invalid", message, options);
  }
}
