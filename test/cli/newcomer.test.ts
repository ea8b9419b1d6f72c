// What a new user meets first: demo, fake, and the hints they print.
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { demoHints, hintArgv, runnableHints } from "../../src/testing/demo-hints.ts";
import { runCli, TSX_IMPORT } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

const BIN = new URL("../../bin/tidemark.js", import.meta.url).pathname;

describe("tidemark demo", () => {
  it("keeps its data in ./tidemark-demo, says so, and its hints work as printed", async () => {
    const cwd = testTempDir("tm-newcomer-");
    const res = await runCli(["demo", "--only", "books"], { cwd });
    expect(res.code, res.stderr).toBe(0);
    // On the next line when the folder's path is long: no line is wider than 80 columns.
    expect(res.stdout).toMatch(/^Demo data directory:\s+(\S+)$/m);
    expect(/^Demo data directory:\s+(\S+)$/m.exec(res.stdout)?.[1]).toBe(
      path.join(cwd, "tidemark-demo"),
    );
    // The dashboard's is a server that runs until stopped: checked by the serve tests, not run.
    const hints = runnableHints(res.stdout);
    expect(demoHints(res.stdout).filter((l) => !hints.includes(l))).toEqual([
      expect.stringMatching(/^Start: +npx tidemark -c \S+ serve --insecure-no-auth --no-workers$/),
    ]);
    expect(res.stdout).toContain("Open:   http://127.0.0.1:8787/ui");
    expect(hints.length).toBeGreaterThan(2);
    for (const hint of hints) {
      const out = await runCli(hintArgv(hint), { cwd });
      expect({ hint, code: out.code, stderr: out.stderr }).toEqual({ hint, code: 0, stderr: "" });
    }
    const runs = await runCli(hintArgv(hints.find((h) => h.includes("runs ls"))!), { cwd });
    expect(runs.stdout).toContain("consultant-books");
    // A second demo starts over in the same folder.
    expect((await runCli(["demo", "--only", "books"], { cwd })).code).toBe(0);
  });

  it("refuses a folder that holds something else, and an unknown pipeline (exit 2)", async () => {
    const cwd = testTempDir("tm-newcomer-");
    mkdirSync(path.join(cwd, "mine"));
    writeFileSync(path.join(cwd, "mine", "precious.txt"), "keep me");
    const busy = await runCli(["demo", "--data-dir", "mine"], { cwd });
    expect(busy.code).toBe(2);
    expect(busy.stderr).toMatch(/--data-dir .*mine: the folder is not empty/);
    expect(existsSync(path.join(cwd, "mine", "precious.txt"))).toBe(true);

    const nope = await runCli(["demo", "--only", "nope"], { cwd });
    expect(nope.code).toBe(2);
    expect(nope.stderr).toMatch(/unknown pipeline with a demo "nope"; known: books, snapshots/);
  });
});

describe("tidemark fake", () => {
  it("refuses an unknown pipeline (exit 2)", async () => {
    const cwd = testTempDir("tm-newcomer-");
    const res = await runCli(["fake", "nope"], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/unknown pipeline with a fake "nope"; known: books/);
  });

  it("runs the books fake in the foreground, prints the variables, and stops on SIGTERM", async () => {
    const cwd = testTempDir("tm-newcomer-");
    const child = spawn(process.execPath, ["--import", TSX_IMPORT, BIN, "fake", "books"], {
      cwd,
      env: { ...process.env, TIDEMARK_FROM_SOURCE: "1", TIDEMARK_DATA_DIR: path.join(cwd, "d") },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d) => {
        out += d;
        if (out.includes("Press Ctrl-C")) resolve();
      });
      child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    await ready;
    const url = /export TIDEMARK_GOOGLE_BOOKS_URL=(\S+)/.exec(out)?.[1];
    expect(out).toMatch(/export TIDEMARK_SMTP_HOST=127\.0\.0\.1/);
    const res = await fetch(`${url}/books/v1/volumes?q=intitle:tea&maxResults=2`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { items: unknown[] }).items).toHaveLength(2);
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("a fake asked for a port already taken exits 2 with one line naming the option", async () => {
    const cwd = testTempDir("tm-newcomer-");
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const res = await runCli(["fake", "books", "--port", String(port)], {
        cwd,
        env: { TIDEMARK_DATA_DIR: path.join(cwd, "d") },
      });
      expect(res.code).toBe(2);
      expect(res.stderr.trim()).toBe(
        `tidemark: --port/--host: cannot listen on 127.0.0.1:${port}: EADDRINUSE`,
      );
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe("secrets in errors", () => {
  it("never echoes an API key pasted where its variable's name belongs", async () => {
    const cwd = testTempDir("tm-newcomer-");
    // A Google key, one with a dash (no longer even a variable name), another vendor's key.
    for (const key of [
      "AIzaSyA1b2C3d4E5f6G7h8I9j0KlMnOpQrStUvW",
      "AIzaSyB-x9_Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9L",
      "sk-live-abcdef1234567890",
    ]) {
      const params = {
        queries: ["intitle:tea"],
        api_key_env: key,
        mail: { to: "me@example.com", from: "d@example.com", subject: "Books" },
      };
      const res = await runCli(
        ["job", "add", "b", "--type", "books.run", "--params", JSON.stringify(params)],
        { cwd, env: { TIDEMARK_DATA_DIR: path.join(cwd, "data") } },
      );
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/api_key_env: (looks like an API key|must be an environment)/);
      expect(res.stderr).toContain(`got a ${key.length}-character value`);
      expect(res.stderr).not.toContain(key.slice(4, 20));
    }
  });

  it("never echoes a rejected API token, and blames the variable that set it", async () => {
    const cwd = testTempDir("tm-newcomer-");
    writeFileSync(path.join(cwd, "tidemark.yaml"), "log: { level: warn }\n");
    const res = await runCli(["job", "ls"], { cwd, env: { TIDEMARK_API_TOKENS: "s3cr3t-token" } });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(
      /^tidemark: TIDEMARK_API_TOKENS: api_tokens\.0: .*got a 12-character value/,
    );
    expect(res.stderr).not.toContain("s3cr3t");
  });
});

describe("a rejected configuration writes nothing", () => {
  it("refuses pipelines.snapshots.storage: ftp with exit 2 before creating data/ or a database", async () => {
    const cwd = testTempDir("tm-newcomer-");
    writeFileSync(path.join(cwd, "tidemark.yaml"), "pipelines:\n  snapshots:\n    storage: ftp\n");
    for (const argv of [["snapshots", "status"], ["job", "ls"], ["db", "migrate"], ["run-due"]]) {
      const res = await runCli(argv, { cwd });
      expect({ argv, code: res.code }).toEqual({ argv, code: 2 });
      expect(res.stderr).toMatch(/tidemark\.yaml: pipelines\.snapshots\.storage: .*\(got "ftp"\)/);
      expect(existsSync(path.join(cwd, "data"))).toBe(false);
    }
  });

  it("refuses pipelines.snapshots.direct_io that is not true or false, naming it", async () => {
    const cwd = testTempDir("tm-newcomer-");
    writeFileSync(
      path.join(cwd, "tidemark.yaml"),
      "pipelines:\n  snapshots:\n    direct_io: yes\n",
    );
    const res = await runCli(["snapshots", "status"], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/tidemark\.yaml: pipelines\.snapshots\.direct_io: .*boolean/);
    expect(existsSync(path.join(cwd, "data"))).toBe(false);
  });

  it("refuses a bad books setting at load, before a job runs", async () => {
    const cwd = testTempDir("tm-newcomer-");
    writeFileSync(
      path.join(cwd, "tidemark.yaml"),
      'pipelines:\n  books:\n    smtp: { port: "abc" }\n',
    );
    const res = await runCli(["job", "ls"], { cwd });
    expect(res.code).toBe(2);
    expect(res.stderr.trim()).toMatch(
      /^tidemark: .*tidemark\.yaml: pipelines\.books\.smtp\.port: .*\(got "abc"\)$/,
    );
  });
});
