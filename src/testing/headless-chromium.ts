import { existsSync } from "node:fs";
import { chromium, type Browser } from "playwright-core";

/** Debian's Chromium (`apt-get install chromium`, scripts/setup.sh step 1); never a downloaded browser. */
export const CHROMIUM_PATH = process.env.ENVFORGE_CHROMIUM ?? "/usr/bin/chromium";

/**
 * Launches the system Chromium headless through playwright-core.
 * @throws Error naming the missing binary and how to install it
 */
export async function launchHeadlessChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(`${CHROMIUM_PATH} not found: install Debian's chromium package (./scripts/setup.sh does) or set ENVFORGE_CHROMIUM`);
  // --no-sandbox: CI and this project's machines run tests as root, where Chromium's own sandbox cannot start
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
}
