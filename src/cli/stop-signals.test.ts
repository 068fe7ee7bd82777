import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

// A real child process with the built handler (dist/cli/stop-signals.js, made by `npm run build`), sent real signals.
const MODULE = new URL("../../dist/cli/stop-signals.js", import.meta.url).href;
const folder = mkdtempSync(join(tmpdir(), "envforge-stop-signals-"));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function childWith(marker: string): ReturnType<typeof spawn> {
  const script = `
    import { onStopSignals } from ${JSON.stringify(MODULE)};
    import { writeFileSync } from "node:fs";
    onStopSignals(async (signal) => { await new Promise((r) => setTimeout(r, 100)); writeFileSync(${JSON.stringify(marker)}, signal); });
    process.stdout.write("ready\\n");
    setInterval(() => {}, 1000);
  `;
  return spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
}

async function stopWith(signal: "SIGINT" | "SIGTERM"): Promise<{ code: number | null; marker: string | null }> {
  const marker = join(folder, `${signal}.txt`);
  const child = childWith(marker);
  await new Promise<void>((resolve) => child.stdout?.once("data", () => resolve()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.kill(signal);
  const code = await exited;
  return { code, marker: existsSync(marker) ? readFileSync(marker, "utf8") : null };
}

describe("onStopSignals", () => {
  it("runs the clean-up on SIGTERM and SIGINT, then exits with 143 and 130", async () => {
    expect(await stopWith("SIGTERM")).toEqual({ code: 143, marker: "SIGTERM" });
    expect(await stopWith("SIGINT")).toEqual({ code: 130, marker: "SIGINT" });
  }, 30_000);
});
