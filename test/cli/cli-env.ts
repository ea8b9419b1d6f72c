import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import type { DialectHarness } from "../../src/testing/dialects.ts";

/** A fresh working directory and the environment that points the CLI at a fresh database. */
export async function cliEnv(h: DialectHarness): Promise<{ cwd: string; env: NodeJS.ProcessEnv }> {
  const cwd = mkdtempSync(path.join(tmpdir(), "tm-cli-"));
  const target = await h.freshTarget();
  const url = target.dialect === "postgres" ? target.url : `sqlite:${target.path}`;
  return { cwd, env: { TIDEMARK_DATABASE_URL: url, TIDEMARK_DATA_DIR: path.join(cwd, "data") } };
}
