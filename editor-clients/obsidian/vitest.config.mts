import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// `obsidian` is only a types package at build time (Obsidian provides it at runtime): the tests
// get a small fake of it, and a DOM from happy-dom.
export default defineConfig({
  resolve: {
    alias: { obsidian: fileURLToPath(new URL("./test/mocks/obsidian.ts", import.meta.url)) },
  },
  test: {
    include: ["test/**/*.test.ts"],
    environment: "happy-dom",
    pool: "threads",
    poolOptions: { threads: { maxThreads: 2, minThreads: 1 } },
    testTimeout: 60_000,
    // the integration suite's beforeAll waits (bounded, 60 s) for the companion's first index run
    hookTimeout: 120_000,
  },
});
