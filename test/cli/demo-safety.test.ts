// A served demo must never send the demo's data to a real service.
import net from "node:net";
import path from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { openRuntime } from "../../src/engine/runtime/open-runtime.ts";
import { EmbeddedScheduler } from "../../src/engine/scheduler/index.ts";
import { loadConfig } from "../../src/infra/config/load-config.ts";
import { createLogger } from "../../src/infra/logging/logger.ts";
import { pipelines } from "../../src/pipelines/index.ts";
import { startServe } from "../../src/server/processes/serve-process.ts";
import { hintArgv, runnableHints } from "../../src/testing/demo-hints.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { runCli } from "../../src/testing/run-cli.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|::1|localhost)$/;

/** Every host a socket of this process connects to, while installed. */
function recordConnections(): string[] {
  const hosts: string[] = [];
  const original = net.Socket.prototype.connect;
  // biome-ignore lint/suspicious/noExplicitAny: connect's overloads take options, a port or a path
  net.Socket.prototype.connect = function (this: net.Socket, ...args: any[]) {
    const first = args[0];
    if (typeof first === "object" && first !== null && !("path" in first && first.path)) {
      hosts.push(String(first.host ?? "localhost"));
    } else if (typeof first === "number" || /^\d+$/.test(String(first))) {
      hosts.push(String(args[1] ?? "localhost"));
    }
    return original.apply(this, args as Parameters<typeof original>);
  } as typeof original;
  onTestFinished(() => {
    net.Socket.prototype.connect = original;
  });
  return hosts;
}

describe("a served demo", () => {
  // Every pipeline's demo, its hints and a served process: minutes on a busy two-core machine.
  it("fires no job, connects to no host outside 127.0.0.1, and job ls says why; its output fits 80 columns and its hints run", {
    timeout: 300_000,
  }, async () => {
    const hosts = recordConnections();
    const cwd = testTempDir("tm-demo-safety-");
    const demo = await runCli(["demo"], { cwd });
    expect(demo.code, demo.stderr).toBe(0);
    expect(demo.stdout).toMatch(/Disabled: .*mercari-hourly/);
    // Every line within 80 columns, every printed command runnable as printed.
    // (The user's own folder is printed whole, however long this machine's temp path is.)
    const lines = demo.stdout.split("\n").map((l) => l.replaceAll(cwd, "/home/me"));
    expect(lines.filter((l) => l.length > 80)).toEqual([]);
    for (const hint of runnableHints(demo.stdout)) {
      const out = await runCli(hintArgv(hint), { cwd });
      expect({ hint, code: out.code, stderr: out.stderr }).toEqual({ hint, code: 0, stderr: "" });
    }

    const dataDir = path.join(cwd, "tidemark-demo");
    const registry = new Registry(pipelines);
    const config = loadConfig({
      configPath: path.join(dataDir, "tidemark.yaml"),
      cwd: dataDir,
      env: {},
      pipelineSettings: registry.settingsSpecs(),
    });
    const clock = new ManualClock(new Date());
    const logger = createLogger({ level: "silent" });
    const runtime = await openRuntime({ config, registry, logger, clock, environ: {} });
    try {
      // Two days of the demo's schedules (hourly crawl, daily digest): nothing is due.
      const fired: string[] = [];
      const scheduler = new EmbeddedScheduler({
        runtime,
        dispatch: async (fire) => {
          fired.push(fire.job.name);
          return "queued";
        },
      });
      await scheduler.reload();
      for (let h = 0; h < 48; h++) {
        clock.advance(3_600_000);
        await scheduler.tick();
      }
      await scheduler.stop(0);
      expect(fired).toEqual([]);

      // The real process: scheduler, workers and API on the demo's folder.
      const served = await startServe(runtime, {
        host: "127.0.0.1",
        port: 0,
        insecureNoAuth: true,
      });
      await new Promise((r) => setTimeout(r, 1_500));
      await served.stop(1_000);
    } finally {
      await runtime.close();
    }
    expect(hosts.length).toBeGreaterThan(0);
    expect(hosts.filter((h) => !LOOPBACK.test(h))).toEqual([]);

    const ls = await runCli(["-c", "tidemark-demo/tidemark.yaml", "job", "ls", "--json"], { cwd });
    const jobs = JSON.parse(ls.stdout) as Array<{ name: string; disabledReason?: string }>;
    const crawl = jobs.find((j) => j.name === "mercari-hourly");
    expect(crawl?.disabledReason).toMatch(/never reaches a real service/);
    // Enabling one says what it now reaches.
    const enable = await runCli(["-c", "tidemark-demo", "job", "enable", "mercari-hourly"], {
      cwd,
    });
    expect(enable.stdout).toMatch(/reaches the real service .*npx tidemark fake mercari/);
  });
});
