// What `tidemark fake` prints must work in the next shell, and --help says which fakes exist.
import { spawn } from "node:child_process";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { loadConfig } from "../../src/infra/config/load-config.ts";
import { pipelines } from "../../src/pipelines/index.ts";
import type { RakutenSettings } from "../../src/pipelines/rakuten/settings.ts";
import { runCli, TSX_IMPORT } from "../../src/testing/run-cli.ts";
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
    const fake = pipelines.find((p) => p.name === "rakuten")?.fake;
    const running = await fake!.start({
      port: 0,
      host: "127.0.0.1",
      dataDir: cwd,
      print: () => {},
    });
    try {
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
    } finally {
      await running.close();
    }
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
