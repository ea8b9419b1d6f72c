// What `tidemark fake` prints must work in the next shell, and --help says which fakes exist.
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { loadConfig } from "../../src/infra/config/load-config.ts";
import { pipelines } from "../../src/pipelines/index.ts";
import type { RakutenSettings } from "../../src/pipelines/rakuten/settings.ts";
import { runCli, TSX_IMPORT } from "../../src/testing/run-cli.ts";
import { startPipelineFake } from "../../src/testing/start-pipeline-fake.ts";
import { testTempDir } from "../../src/testing/temp-dir.ts";

const BIN = new URL("../../bin/tidemark.js", import.meta.url).pathname;
const NAMES = ["books", "snapshots", "mercari", "rakuten", "email-analytics"];

describe("fake and demo --help", () => {
  it("list every pipeline with a fake or a demo, within 80 columns", async () => {
    const cwd = testTempDir("tm-fake-hints-");
    for (const command of ["fake", "demo"]) {
      const r = await runCli([command, "--help"], { cwd });
      expect(r.code).toBe(0);
      const listed = r.stdout.split("Pipelines:\n")[1] ?? "";
      for (const name of NAMES) expect(listed).toMatch(new RegExp(`^  ${name} `, "m"));
      expect(r.stdout.split("\n").filter((l) => l.length > 80)).toEqual([]);
    }
  });
});

describe("the rakuten fake's variables", () => {
  it("point the embeddings at the fake, and a new shell without them still loads the config", async () => {
    const cwd = testTempDir("tm-fake-hints-");
    const running = await startPipelineFake("rakuten", cwd);
    // Nothing to write into tidemark.yaml: the next shell is never left broken.
    expect(running.hints.filter((h) => h.includes("tidemark.yaml"))).toEqual([]);
    const registry = new Registry(pipelines);
    const load = (env: NodeJS.ProcessEnv) =>
      loadConfig({ cwd, env, pipelineSettings: registry.settingsSpecs() }).settings
        .rakuten as RakutenSettings;
    const pointed = load(running.env);
    expect(pointed.embeddings.provider).toBe("openai-compatible");
    expect(pointed.embeddings.baseUrl).toBe(running.env.TIDEMARK_EMBEDDINGS_URL);
    expect(load({}).embeddings.provider).toBe("local");
  });
});

describe("tidemark fake snapshots", () => {
  it("prints the data dir under 'Point Tidemark at it'", async () => {
    const cwd = testTempDir("tm-fake-hints-");
    const dataDir = path.join(cwd, "d");
    const child = spawn(process.execPath, ["--import", TSX_IMPORT, BIN, "fake", "snapshots"], {
      cwd,
      env: { ...process.env, TIDEMARK_FROM_SOURCE: "1", TIDEMARK_DATA_DIR: dataDir },
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
    const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
    child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(out).toContain(
      `Point Tidemark at it (in another shell):\n  export TIDEMARK_DATA_DIR=${dataDir}\n`,
    );
  });
});

describe("a fake's own rate", () => {
  it("is announced in its variables and read by the pipeline's settings", async () => {
    const cwd = testTempDir("tm-fake-hints-");
    const registry = new Registry(pipelines);
    for (const [name, variable, key] of [
      ["books", "TIDEMARK_GOOGLE_BOOKS_REQUESTS_PER_SECOND", "books"],
      ["mercari", "TIDEMARK_MERCARI_REQUESTS_PER_SECOND", "mercari"],
      ["rakuten", "TIDEMARK_RAKUTEN_REQUESTS_PER_SECOND", "rakuten"],
    ] as const) {
      const running = await startPipelineFake(name, cwd);
      const rate = Number(running.env[variable]);
      expect({ name, rate: rate > 1 }).toEqual({ name, rate: true });
      const settings = loadConfig({
        cwd,
        env: running.env,
        pipelineSettings: registry.settingsSpecs(),
      }).settings[key] as { requestsPerSecond: number };
      expect(settings.requestsPerSecond).toBe(rate);
    }
  });

  it("lets a run against the rakuten fake go at that rate (20 items in seconds, not 20 s)", async () => {
    const cwd = testTempDir("tm-fake-hints-");
    const running = await startPipelineFake("rakuten", cwd);
    const env = {
      ...running.env,
      TIDEMARK_DATA_DIR: path.join(cwd, "d"),
      RAKUTEN_APPLICATION_ID: "00000000-0000-4000-8000-00000000fake",
      RAKUTEN_ACCESS_KEY: "fake-access-key",
    };
    const codes = await fetch(`${running.env.TIDEMARK_RAKUTEN_URL}/_fake/items?limit=20`);
    const { itemCodes } = (await codes.json()) as { itemCodes: string[] };
    expect(itemCodes).toHaveLength(20);
    const params = JSON.stringify({ genre_ids: [], item_codes: itemCodes });
    const add = await runCli(["job", "add", "ri", "--type", "rakuten.item", "--params", params], {
      cwd,
      env,
    });
    expect(add.code, add.stderr).toBe(0);
    const started = Date.now();
    const run = await runCli(["run", "ri"], { cwd, env });
    expect(run.code, run.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
