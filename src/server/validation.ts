import type { z } from "zod";
import { ServeRequestError } from "../spec/index.js";

/**
 * Parses `value` with `schema`, or throws a typed refusal naming each offending field once (its first issue, at most 8 fields).
 * @param what what was parsed, for the message (e.g. `reset data`)
 * @throws ServeRequestError `invalid_request`
 */
export function parseRequest<S extends z.ZodType>(schema: S, value: unknown, what: string): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  // one message per field: zod can report the same bound twice (int range, then number range)
  const byField = new Map<string, string>();
  for (const issue of parsed.error.issues) {
    const field = issue.path.join(".") || "(root)";
    if (!byField.has(field)) byField.set(field, issue.message);
  }
  const issues = [...byField]
    .slice(0, 8)
    .map(([field, message]) => `${field}: ${message}`)
    .join("; ");
  throw new ServeRequestError("invalid_request", `invalid ${what}: ${issues}`);
}
