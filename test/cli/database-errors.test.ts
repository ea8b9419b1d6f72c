import path from "node:path";
import { expect, it } from "vitest";
import { main } from "../../src/cli/main.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";

it("a database found read-only mid-command is one line naming it, exit 2", async () => {
  const cwd = testTempDir("tm-dberr-");
  let stderr = "";
  // The write fails where job ls prints: what SQLite throws once the file turned read-only.
  const readOnly = Object.assign(new Error("attempt to write a readonly database"), {
    code: "SQLITE_READONLY",
  });
  const code = await main(
    ["job", "ls"],
    {
      out: () => {
        throw readOnly;
      },
      err: (t) => {
        stderr += t;
      },
      cwd,
      env: { TIDEMARK_LOG_LEVEL: "warn" },
      readStdin: async () => Buffer.from(""),
      isTTY: false,
    },
    testRegistry(),
  );
  expect(code).toBe(2);
  expect(stderr).toBe(
    `tidemark: database ${path.join(cwd, "data", "tidemark.db")}: cannot write: the database is read-only (check the permissions of the file, its -wal and -shm files and its folder)\n`,
  );
});
