import { existsSync, readFileSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Where `npm run build` puts the bundled web page (Vite's output of `web/`): `dist/dashboard-web`
 * of the package, found from this module both in `src/dashboard` and `dist/dashboard`.
 */
export const DEFAULT_ASSETS_DIR = join(fileURLToPath(new URL("../../", import.meta.url)), "dist", "dashboard-web");

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json",
};

/** A file of the bundled page, ready to send. */
export interface StaticAsset {
  readonly contentType: string;
  readonly body: Buffer;
  /** Hashed file names (under `assets/`) never change, so they may be cached for good. */
  readonly immutable: boolean;
}

/**
 * The asset for a URL path: `/` is `index.html`; a path outside `assetsDir` or not a file gives
 * null. Read from disk on every call (small files; a rebuilt page shows without a restart).
 */
export function readStaticAsset(assetsDir: string, pathname: string): StaticAsset | null {
  let decoded: string;
  try {
    decoded = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  const relative = decoded === "/" ? "index.html" : decoded.replace(/^\/+/, "");
  if (relative.includes("\0")) return null;
  const path = normalize(join(assetsDir, relative));
  if (!path.startsWith(normalize(assetsDir) + sep)) return null;
  if (!existsSync(path) || !statSync(path).isFile()) return null;
  return {
    contentType: CONTENT_TYPES[extname(path)] ?? "application/octet-stream",
    body: readFileSync(path),
    immutable: relative.startsWith("assets/"),
  };
}
