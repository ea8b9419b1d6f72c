import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/** The package's own entries by name (as tsconfig.json's "paths" map them for tsc and tsx). */
const SDK_ENTRIES = { tidemark: "index", "tidemark/kit": "kit", "tidemark/testing": "testing" };

export default defineConfig({
  resolve: {
    alias: Object.entries(SDK_ENTRIES).map(([name, file]) => ({
      find: new RegExp(`^${name}$`),
      replacement: fileURLToPath(new URL(`./src/sdk/${file}.ts`, import.meta.url)),
    })),
  },
  test: {
    // Child processes and worker threads that run the sources through tsx resolve `tidemark`,
    // `tidemark/kit` and `tidemark/testing` with this checkout's tsconfig "paths" (to src/sdk),
    // whatever their cwd, never to a built dist/ (a second copy of the engine's modules).
    env: { TSX_TSCONFIG_PATH: fileURLToPath(new URL("./tsconfig.json", import.meta.url)) },
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // Several tests take 20–25 s when every suite shares two busy cores (5–10× their time alone);
    // a hang still fails, a minute later.
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Two cores on CI: a couple of workers keeps Postgres and child processes responsive.
    maxWorkers: 2,
    // A fresh TMPDIR per run; anything left in it fails the run.
    globalSetup: ["./test/support/temp-dir-guard.ts"],
    // After the summary: how many Postgres tests did not run, and why.
    reporters: ["default", "./test/support/postgres-skip-reporter.ts"],
  },
});
