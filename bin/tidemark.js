#!/usr/bin/env node
// Entry point. `npm install` bundles src/ into dist/ (the `prepare` script) so the CLI starts
// fast; without dist/ (or with TIDEMARK_FROM_SOURCE=1, as the tests use) the TypeScript
// sources run through tsx's loader instead.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const compiled = new URL("../dist/main.js", import.meta.url);
let main;
if (process.env.TIDEMARK_FROM_SOURCE !== "1" && existsSync(compiled)) {
  ({ main } = await import(compiled.href));
} else {
  const { register } = await import("tsx/esm/api");
  // This checkout's tsconfig whatever the cwd: its "paths" map `tidemark`, `tidemark/kit` and
  // `tidemark/testing` to the sources, as vitest and tsc do. Worker threads and child processes
  // that load tsx themselves find it through TSX_TSCONFIG_PATH, so they resolve the same files.
  const tsconfig = fileURLToPath(new URL("../tsconfig.json", import.meta.url));
  process.env.TSX_TSCONFIG_PATH ??= tsconfig;
  register({ tsconfig });
  ({ main } = await import("../src/cli/main.ts"));
}
process.exitCode = await main(process.argv.slice(2));
