import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["src/**/*.test.ts"],
    testTimeout: 120_000,
    hookTimeout: 120_000,
    pool: "forks",
    // model-backed files each use every core; running them side by side on a small machine
    // oversubscribes llama.cpp's threads and slows everything down
    fileParallelism: false,
  },
});
