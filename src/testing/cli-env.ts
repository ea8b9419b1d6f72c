import path from "node:path";
import type { DatabaseTarget } from "../infra/config/load-config.ts";
import type { DialectHarness } from "./dialects.ts";
import { testTempDir } from "./temp-dir.ts";

/** The `TIDEMARK_DATABASE_URL` that points the CLI at a target: `sqlite:<file>` or the pg URL. */
export function databaseUrl(target: DatabaseTarget): string {
  return target.dialect === "postgres" ? target.url : `sqlite:${target.path}`;
}

/**
 * A fresh working directory (removed after the test) and the environment that points the CLI at
 * a fresh database of `h`: the one way every CLI suite passes the database.
 */
export async function cliEnv(
  h: DialectHarness,
  prefix = "tm-cli-",
): Promise<{ cwd: string; env: NodeJS.ProcessEnv; target: DatabaseTarget }> {
  const cwd = testTempDir(prefix);
  const target = await h.freshTarget();
  return {
    cwd,
    env: { TIDEMARK_DATABASE_URL: databaseUrl(target), TIDEMARK_DATA_DIR: path.join(cwd, "data") },
    target,
  };
}
