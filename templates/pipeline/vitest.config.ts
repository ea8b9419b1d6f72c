import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // The CLI runs and the migrations on Postgres take a few seconds on a busy machine.
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
