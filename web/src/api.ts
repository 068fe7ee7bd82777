import type { DesignView, EnvironmentDetail, LineageView, RunDetail, RunSummary } from "../../src/dashboard/index.js";

/** The shapes the dashboard's JSON routes answer with (the server's own types). */
export type { DesignView, EnvironmentDetail, LineageView, RunDetail, RunSummary };

const TOKEN_KEY = "envforge-dashboard-token";

/** Takes a token from a `#token=…` fragment (kept for this tab only) and returns the route fragment left. */
export function takeTokenFromFragment(): void {
  const match = /^#token=([^&/]+)/.exec(location.hash);
  if (match === null) return;
  sessionStorage.setItem(TOKEN_KEY, decodeURIComponent(match[1] as string));
  history.replaceState(null, "", `${location.pathname}#/`);
}

function headers(): Record<string, string> {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token === null ? {} : { authorization: `Bearer ${token}` };
}

/** A failed API call: the server's `detail` and `reason`. */
export class ApiError extends Error {
  /**
   * @param message the server's `detail`
   * @param status the HTTP status
   * @param reason the server's `reason`, e.g. `store_corrupt`
   */
  constructor(
    message: string,
    readonly status: number,
    readonly reason: string,
  ) {
    super(message);
  }
}

/**
 * GETs a JSON route of the dashboard server.
 * @throws ApiError with the server's explanation (e.g. a store that is missing or corrupt)
 */
export async function getJson<T>(path: string): Promise<T> {
  const response = await fetch(path, { headers: headers() });
  const body = (await response.json().catch(() => ({}))) as { detail?: string; reason?: string };
  if (!response.ok) throw new ApiError(body.detail ?? `${response.status} ${response.statusText}`, response.status, body.reason ?? "unknown");
  return body as T;
}

/**
 * Follows the server-sent events of `/api/events` (read with fetch, so the bearer token can be
 * sent), calling `onChange` with the changed run ids; reconnects after a drop.
 */
export async function followChanges(onChange: (runs: string[]) => void, onState: (live: boolean) => void): Promise<never> {
  for (;;) {
    try {
      const response = await fetch("/api/events", { headers: headers() });
      if (!response.ok || response.body === null) throw new Error(`events: ${response.status}`);
      onState(true);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const lines = frame.split("\n");
          const event = lines.find((line) => line.startsWith("event: "))?.slice(7);
          const data = lines.find((line) => line.startsWith("data: "))?.slice(6);
          if (event === "change" && data !== undefined) onChange((JSON.parse(data) as { runs: string[] }).runs);
        }
      }
    } catch {
      // dropped or refused: show offline and retry
    }
    onState(false);
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}
