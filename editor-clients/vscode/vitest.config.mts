import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// `vscode` only exists inside VS Code: the unit tests get a small fake of it.
export default defineConfig({
  resolve: {
    alias: { vscode: fileURLToPath(new URL("./test/mocks/vscode.ts", import.meta.url)) },
  },
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    pool: "threads",
    poolOptions: { threads: { maxThreads: 2, minThreads: 1 } },
  },
});
