import type { IncomingMessage, ServerResponse } from "node:http";
import { ServeRequestError } from "../spec/index.js";
import { errorAnswer } from "./problems.js";

/**
 * Reads a request body as JSON, at most `maxBytes` of it; an empty body is `{}` (OpenEnv's
 * `POST /reset` takes none).
 * @throws ServeRequestError `body_too_large` (declared or streamed over the limit), `invalid_json`
 */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers["content-length"] ?? Number.NaN);
  if (declared > maxBytes) throw new ServeRequestError("body_too_large", `request body of ${declared} bytes exceeds the limit of ${maxBytes} bytes`);
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) throw new ServeRequestError("body_too_large", `request body exceeds the limit of ${maxBytes} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8");
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new ServeRequestError("invalid_json", `request body is not JSON: ${(error as Error).message}`);
  }
}

/** Writes a JSON answer. */
export function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent) {
    response.end();
    return;
  }
  const text = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers });
  response.end(text);
}

/**
 * Writes the typed answer of a refused request. A body that was not read whole (too large)
 * closes the connection after the answer, so the rest of it is never read.
 */
export function sendRefusal(response: ServerResponse, error: ServeRequestError): void {
  const answer = errorAnswer(error);
  const closing = error.problem === "body_too_large";
  sendJson(response, answer.status, answer.body, closing ? { ...answer.headers, connection: "close" } : answer.headers);
  if (closing) response.on("finish", () => response.req.destroy());
}
