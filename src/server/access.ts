import { createHash, timingSafeEqual } from "node:crypto";
import { isIP } from "node:net";
import { ConfigError } from "../spec/index.js";

/** Whether `host` is a loopback address or name (127.0.0.0/8, ::1, localhost). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (bare === "localhost" || bare.endsWith(".localhost")) return true;
  if (isIP(bare) === 4) return bare.startsWith("127.");
  if (isIP(bare) === 6) {
    const lower = bare.toLowerCase();
    return lower === "::1" || /^(0{0,4}:){7}0{0,3}1$/.test(lower) || lower.startsWith("::ffff:127.");
  }
  return false;
}

/**
 * The bearer tokens in environment variable `name` (comma-separated, blanks dropped).
 * @throws ConfigError when a token is shorter than 16 characters
 */
export function readTokens(environment: NodeJS.ProcessEnv, name: string): string[] {
  const tokens = (environment[name] ?? "")
    .split(",")
    .map((token) => token.trim())
    .filter((token) => token !== "");
  const short = tokens.find((token) => token.length < 16);
  if (short !== undefined) throw new ConfigError(`${name}: every token must have at least 16 characters`);
  return tokens;
}

/**
 * Refuses to serve a non-loopback address without tokens (anyone on the network could run
 * episodes otherwise).
 * @throws ConfigError naming the host and how to set a token
 */
export function assertSafeBinding(host: string, tokens: readonly string[], tokenEnv: string): void {
  if (isLoopbackHost(host) || tokens.length > 0) return;
  throw new ConfigError(
    `refusing to serve on ${host} without a bearer token: set ${tokenEnv} (at least 16 characters; e.g. export ${tokenEnv}=$(openssl rand -hex 24)), or bind 127.0.0.1`,
  );
}

const digest = (text: string) => createHash("sha256").update(text).digest();

/**
 * Whether a request without a token comes from this machine's own clients: its `Host` names a
 * loopback address (a DNS-rebound name does not) and its `Origin`, when a browser sent one, is
 * the server's own origin (a loopback host on the same port: a page another local server serves,
 * on another port, is refused too). A tokenless server answers only such requests, so a web page
 * the user opens cannot drive it.
 */
export function isLocalRequest(headers: { readonly host?: string | undefined; readonly origin?: string | undefined }): boolean {
  const addressOf = (value: string): { hostname: string; port: string } | null => {
    try {
      const url = new URL(value.includes("://") ? value : `http://${value}`);
      return { hostname: url.hostname.replace(/^\[|\]$/g, ""), port: url.port === "" ? (url.protocol === "https:" ? "443" : "80") : url.port };
    } catch {
      return null;
    }
  };
  const host = headers.host === undefined ? null : addressOf(headers.host);
  if (host === null || !isLoopbackHost(host.hostname)) return false;
  if (headers.origin === undefined || headers.origin === "null") return headers.origin === undefined;
  const origin = addressOf(headers.origin);
  return origin !== null && isLoopbackHost(origin.hostname) && origin.port === host.port;
}

/**
 * Checks a request's `Authorization` header against the accepted tokens: `Bearer <token>`, or
 * HTTP Basic with the token as the password (what WebSocket clients such as OpenEnv's send for a
 * `ws://user:<token>@host` URL). Compared in constant time.
 *
 * @returns the matching token (the rate-limit key), or null when none matches
 */
export function authenticate(header: string | undefined, tokens: readonly string[]): string | null {
  if (header === undefined) return null;
  const [scheme, value = ""] = header.trim().split(/\s+/, 2);
  let offered: string;
  if (scheme?.toLowerCase() === "bearer") {
    offered = value;
  } else if (scheme?.toLowerCase() === "basic") {
    const decoded = Buffer.from(value, "base64").toString("utf8");
    offered = decoded.slice(decoded.indexOf(":") + 1);
  } else {
    return null;
  }
  const offeredDigest = digest(offered);
  let match: string | null = null;
  for (const token of tokens) if (timingSafeEqual(offeredDigest, digest(token))) match = token;
  return match;
}
