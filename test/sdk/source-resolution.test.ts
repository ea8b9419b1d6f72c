// Run from the sources, every process resolves `tidemark` to src/sdk (never to a built dist/,
// which would be a second copy of the engine's modules), whatever its working folder.
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";
import { TSX_IMPORT } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

const FIXTURE = fileURLToPath(new URL("../fixtures/print-sdk-resolution.ts", import.meta.url));
const SDK = new URL("../../src/sdk/", import.meta.url).href;

it("a tsx child process in another folder resolves the entries to src/sdk", () => {
  const res = spawnSync(process.execPath, ["--import", TSX_IMPORT, FIXTURE], {
    cwd: testTempDir("tm-resolve-"),
    encoding: "utf8",
  });
  expect(res.stderr).toBe("");
  expect(res.stdout.trim().split("\n")).toEqual([
    `tidemark ${SDK}index.ts`,
    `tidemark/kit ${SDK}kit.ts`,
    `tidemark/testing ${SDK}testing.ts`,
  ]);
});
