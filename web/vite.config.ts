import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// Bundles the dashboard page into dist/dashboard-web (served by src/dashboard/static-assets.ts);
// everything, uPlot and Prism included, ships in the package: nothing loads from the network.
export default defineConfig({
  root: fileURLToPath(new URL(".", import.meta.url)),
  base: "./",
  logLevel: "warn",
  build: {
    outDir: fileURLToPath(new URL("../dist/dashboard-web", import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 1024,
  },
});
