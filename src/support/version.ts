import { readFileSync } from "node:fs";

/** envforge's version, from its package.json (the same from `src/` and `dist/`, both two folders below it). */
export const ENVFORGE_VERSION: string = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string }).version;
