// `tidemark fake snapshots`: a supplier dropping files, to try the pipeline without a real one.
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { afterEach, expect, it, vi } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { snapshotsPipeline } from "../../src/pipelines/snapshots/index.ts";
import { loadSupplierConfig } from "../../src/pipelines/snapshots/stages/intake/config/load-supplier-config.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { runCli, TSX_IMPORT } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

const BIN = new URL("../../bin/tidemark.js", import.meta.url).pathname;
const registry = new Registry([snapshotsPipeline]);

afterEach(() => {
  vi.useRealTimers();
});

describeEachDialect("tidemark fake snapshots", (h) => {
  it("sets up fake-supplier, drops a snapshot now and a changed one every 30 s; its hints work", async () => {
    const cwd = testTempDir("tm-snapfake-");
    const dataDir = path.join(cwd, "data");
    const lines: string[] = [];
    vi.useFakeTimers({ toFake: ["setInterval", "clearInterval"] });
    const fake = await snapshotsPipeline.fake!.start({
      port: 0,
      host: "127.0.0.1",
      dataDir,
      print: (l) => lines.push(l),
    });
    try {
      expect(fake.env).toEqual({});
      const configDir = path.join(dataDir, "etl_ops", "config");
      expect(loadSupplierConfig(configDir, "fake-supplier").ok).toBe(true);
      const inbox = path.join(dataDir, "etl_data", "raw_v1", "inbox", "fake-supplier");
      expect(readdirSync(inbox)).toHaveLength(1);
      expect(lines.filter((l) => l.startsWith("dropped "))).toHaveLength(1);

      const target = await h.freshTarget();
      const env = {
        TIDEMARK_DATA_DIR: dataDir,
        TIDEMARK_DATABASE_URL: target.dialect === "postgres" ? target.url : `sqlite:${target.path}`,
      };
      const hint = fake.hints.find((l) => l.includes("snapshots run"))!;
      const argv = hint.replace(/#.*$/, "").trim().split(/\s+/).slice(1);
      let r = await runCli(argv, { cwd, env, registry });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/fake-supplier: PASS[\s\S]*rows: 120 \(good 120, bad 0/);

      await vi.advanceTimersByTimeAsync(30_000);
      await vi.waitFor(
        () => expect(lines.filter((l) => l.startsWith("dropped "))).toHaveLength(2),
        { timeout: 5000 },
      );
      expect(readdirSync(inbox)).toHaveLength(1);
      r = await runCli(argv, { cwd, env, registry });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/\+2 added, -\d+ removed [^,]*, ~\d+ changed/);
      expect(r.stdout).not.toMatch(/-0 removed/);
      for (const other of fake.hints.filter((l) => !l.includes("snapshots run"))) {
        const args = other.split("|")[0]!.trim().split(/\s+/).slice(1);
        const out = await runCli(args, { cwd, env, registry });
        expect({ other, code: out.code }).toEqual({ other, code: 0 });
      }
    } finally {
      await fake.close();
    }
    // Closed: no more drops.
    await vi.advanceTimersByTimeAsync(60_000);
    expect(lines.filter((l) => l.startsWith("dropped "))).toHaveLength(2);
  });
});

it("tidemark fake snapshots stays in the foreground until SIGTERM", async () => {
  const cwd = testTempDir("tm-snapfake-");
  const child = spawn(process.execPath, ["--import", TSX_IMPORT, BIN, "fake", "snapshots"], {
    cwd,
    env: { ...process.env, TIDEMARK_FROM_SOURCE: "1", TIDEMARK_DATA_DIR: path.join(cwd, "d") },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  await new Promise<void>((resolve, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("Press Ctrl-C")) resolve();
    });
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  expect(out).toMatch(/dropped stock_\S+\.csv \(120 SKUs\)/);
  expect(out).toContain("Then: npx tidemark snapshots run fake-supplier");
  await new Promise((r) => setTimeout(r, 500));
  expect(child.exitCode).toBeNull();
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
});
