import { existsSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { loadConfig } from "../../src/infra/config/load-config.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";
import { testRegistry } from "../../src/testing/test-pipeline.ts";
import { startCli } from "./child-cli.ts";

const tmp = () => testTempDir("tm-serve-");
const cli = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCli(args, { cwd, env: { TIDEMARK_API_TOKENS: "", ...env }, registry: testRegistry() });

describe("tidemark serve / worker (CLI)", () => {
  it("refuses to start without an API token: exit 2, a clear message, nothing created", async () => {
    const cwd = tmp();
    const r = await cli(cwd, ["serve"]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      "no API token configured: set api_tokens in tidemark.yaml or TIDEMARK_API_TOKENS (comma-separated), or pass --insecure-no-auth for local use",
    );
    expect(existsSync(path.join(cwd, "data"))).toBe(false);
    // A worker needs tokens only for a metrics port.
    const worker = await cli(cwd, ["worker", "--metrics-port", "0"]);
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain("no API token configured");
    expect(existsSync(path.join(cwd, "data"))).toBe(false);
  });

  it("rejects a short token and a bad port, naming them", async () => {
    const cwd = tmp();
    writeFileSync(path.join(cwd, "tidemark.yaml"), "api_tokens: [short]\n");
    const short = await cli(cwd, ["serve"]);
    expect(short.code).toBe(2);
    expect(short.stderr).toMatch(/api_tokens\.0: use at least 16 random characters/);
    const port = await cli(tmp(), ["serve", "--port", "99999"]);
    expect(port.code).toBe(2);
    expect(port.stderr).toContain("expected a port from 0 to 65535");
  });

  it("a taken port is exit 2 naming it", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    const { port } = blocker.address() as { port: number };
    try {
      const r = await cli(tmp(), ["serve", "--port", String(port)], {
        TIDEMARK_API_TOKENS: "a-long-enough-token-123",
      });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`cannot listen on 127.0.0.1:${port}: EADDRINUSE`);
    } finally {
      blocker.close();
    }
  });

  it("--insecure-no-auth serves without tokens; SIGINT stops it with exit 0", async () => {
    const cwd = tmp();
    const serve = startCli(["serve", "--port", "0", "--insecure-no-auth"], {
      cwd,
      env: { TIDEMARK_API_TOKENS: "" },
    });
    try {
      const [, url] = (await serve.waitFor(/Listening on (http:\/\/\S+)/)) as RegExpMatchArray;
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const res = await fetch(`${url}/api/jobs`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ jobs: [] });
      expect(serve.stderr()).toContain("HTTP API authentication is OFF");
      serve.child.kill("SIGINT");
      expect(await serve.exited).toBe(0);
    } finally {
      await serve.terminate();
    }
  });

  it("--help lists serve and worker", async () => {
    const r = await cli(tmp(), ["--help"]);
    expect(r.stdout).toMatch(/serve \[options\]\s+run the scheduler, workers and HTTP API/);
    expect(r.stdout).toMatch(/worker \[options\]\s+execute queued runs/);
  });
});

describe("server configuration", () => {
  it("defaults to 127.0.0.1:8787, no tokens, no webhook, misfire skip", () => {
    const cfg = loadConfig({ cwd: tmp(), env: {} });
    expect(cfg.server).toEqual({
      port: 8787,
      host: "127.0.0.1",
      publicUrl: undefined,
      shutdownGraceMs: 30_000,
      trustedProxies: [],
    });
    expect(cfg.apiTokens).toEqual([]);
    expect(cfg.notify?.webhookUrl).toBeUndefined();
    expect(cfg.scheduler).toEqual({ misfire: "skip", misfireGraceMs: 60_000, reloadMs: 30_000 });
  });

  it("reads tidemark.yaml and TIDEMARK_* overrides (port, tokens, webhook, public URL)", () => {
    const cwd = tmp();
    writeFileSync(
      path.join(cwd, "tidemark.yaml"),
      [
        "server: { port: 9000, host: 0.0.0.0, shutdown_grace_seconds: 5 }",
        "api_tokens: [from-the-file-0123456789]",
        "notify: { webhook_url: 'https://hooks.example/a', retries: 2 }",
        "scheduler: { misfire: run_once, misfire_grace_seconds: 10, reload_seconds: 5 }",
      ].join("\n"),
    );
    const cfg = loadConfig({
      cwd,
      env: {
        TIDEMARK_PORT: "9100",
        TIDEMARK_API_TOKENS: " tok-one-0123456789abcdef , tok-two-0123456789abcdef ,",
        TIDEMARK_PUBLIC_URL: "https://tm.example",
      },
    });
    expect(cfg.server).toEqual({
      port: 9100,
      host: "0.0.0.0",
      publicUrl: "https://tm.example",
      shutdownGraceMs: 5000,
      trustedProxies: [],
    });
    expect(cfg.apiTokens).toEqual(["tok-one-0123456789abcdef", "tok-two-0123456789abcdef"]);
    expect(cfg.notify).toMatchObject({ webhookUrl: "https://hooks.example/a", retries: 2 });
    expect(cfg.scheduler).toEqual({ misfire: "run_once", misfireGraceMs: 10_000, reloadMs: 5000 });
    expect(() => loadConfig({ cwd, env: { TIDEMARK_PORT: "80a" } })).toThrow(
      'TIDEMARK_PORT: expected an integer, got "80a"',
    );
    expect(() => loadConfig({ cwd, env: { TIDEMARK_NOTIFY_WEBHOOK_URL: "not a url" } })).toThrow(
      /notify.webhook_url/,
    );
  });
});
