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
  // `tidemark/testing` to the sources, as vitest and tsc do.
  register({ tsconfig: fileURLToPath(new URL("../tsconfig.json", import.meta.url)) });
  ({ main } = await import("../src/cli/main.ts"));
}
process.exitCode = await main(process.argv.slice(2));
