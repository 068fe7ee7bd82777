import type { z } from "zod";
import { ServeRequestError } from "../spec/index.js";

/**
 * Parses `value` with `schema`, or throws a typed refusal naming each offending field.
 * @param what what was parsed, for the message (e.g. `reset data`)
 * @throws ServeRequestError `invalid_request`
 */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues
    .slice(0, 8)
    .map((issue) => `${issue.path.join(".") || "(root)"}: ${issue.message}`)
    .join("; ");
  throw new ServeRequestError("invalid_request", `invalid ${what}: ${issues}`);
}
