import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { CommandSpec } from "../engine/registry/command-spec.ts";
import type { PipelineDefinition } from "../engine/registry/pipeline-definition.ts";
import { Registry } from "../engine/registry/registry.ts";
import { migrateToLatest } from "../infra/db/migrator.ts";
import { panelServices } from "../server/ui/data/panel-services.ts";
import { renderPanel } from "../server/ui/render-panel.ts";
import { describeEachDialect } from "./dialects.ts";
import { runCli } from "./run-cli.ts";
import { staticExternalImports } from "./static-imports.ts";
import { testTempDir } from "./temp-dir.ts";
import { openTestRuntime } from "./test-runtime.ts";

/** Options of the conformance suite. */
export interface ConformanceOptions {
  /**
   * The file that exports the definition (absolute path): checked to load nothing but zod,
   * Node's modules and `tidemark` before its first `await import()`. Left out: not checked.
   */
  readonly definitionFile?: string;
}

const NO_SUCH = "no-such-name-xyz";

/** What a definition may load before any `await import()`: zod, Node's modules, the contract. */
const CHEAP = (spec: string) => spec === "zod" || spec === "tidemark" || spec.startsWith("node:");

/** argv that names something that does not exist, or undefined when the command names nothing. */
function unknownNameArgv(spec: CommandSpec): string[] | undefined {
  // `… add <name>` creates the name it is given.
  if (spec.path.at(-1) === "add") return undefined;
  const argv = [...spec.path];
  let names = false;
  for (const _ of spec.args ?? []) argv.push(NO_SUCH);
  if ((spec.args ?? []).length > 0) names = true;
  for (const o of spec.options ?? []) {
    if (o.flags === "--yes") argv.push("--yes");
    const valued = /^(--[\w-]+) <([\w-]+)>/.exec(o.flags);
    if (valued && /name|job|supplier/.test(valued[2]!)) {
      argv.push(valued[1]!, NO_SUCH);
      names = true;
    }
  }
  return names ? argv : undefined;
}

function cliEnvFor(cwd: string): NodeJS.ProcessEnv {
  return { TIDEMARK_DATA_DIR: path.join(cwd, "data") };
}

/**
 * The promises every pipeline keeps, as Vitest suites: its definition is cheap to import, its
 * examples validate, unknown settings and unknown names exit 2, its commands show in --help, its
 * fake starts, its demo runs, its migrations apply on every dialect of the matrix and its panel
 * renders on an empty database. Call it at the top level of a test file.
 */
export function describePipelineConformance(
  pipeline: PipelineDefinition,
  options: ConformanceOptions = {},
): void {
  const registry = new Registry([pipeline]);
  describe(`pipeline ${pipeline.name}: conformance`, () => {
    definitionChecks(pipeline, options);
    cliChecks(pipeline, registry);
    fakeAndDemoChecks(pipeline, registry);
  });
  describeEachDialect(`pipeline ${pipeline.name}: migrations`, (h) => {
    it("migrate up from empty, and again as a no-op", async () => {
      const db = await h.freshDatabase();
      const first = await migrateToLatest(db, registry.migrationScopes());
      expect(first.find((s) => s.scope === pipeline.name)?.applied.length ?? 0).toBeGreaterThan(0);
      const again = await migrateToLatest(db, registry.migrationScopes());
      expect(again.every((s) => s.applied.length === 0)).toBe(true);
    });

    it.runIf(pipeline.panel)("its dashboard panel renders on an empty database", async () => {
      const runtime = await openTestRuntime(h, { registry });
      const panel = await pipeline.panel!.load();
      const view = await panel.view(panelServices(runtime, undefined, pipeline.name));
      expect(view.blocks.length).toBeGreaterThan(0);
      const page = String(await renderPanel(view, pipeline.name, "csrf-token"));
      expect(page).toMatch(/^<(ul|section|p) /);
      for (const b of view.blocks) {
        if (b.kind === "chart") for (const s of b.series) expect(s.values).toHaveLength(b.x.length);
      }
    });
  });
}

function definitionChecks(pipeline: PipelineDefinition, options: ConformanceOptions): void {
  it.runIf(options.definitionFile)(
    "its definition is cheap to import (no database, HTTP or logging module loaded)",
    async () => {
      const loaded = await staticExternalImports(options.definitionFile!);
      expect(loaded.filter((m) => !CHEAP(m))).toEqual([]);
    },
  );

  it("every job type's documented example validates and its params have a JSON Schema", () => {
    expect(pipeline.jobTypes.length).toBeGreaterThan(0);
    for (const t of pipeline.jobTypes) {
      expect(t.name.startsWith(`${pipeline.name}.`), t.name).toBe(true);
      const parsed = t.params.safeParse(t.example);
      expect(parsed.success, `${t.name}: ${parsed.error?.message}`).toBe(true);
      expect(z.toJSONSchema(t.params, { io: "input", unrepresentable: "any" })).toHaveProperty(
        "type",
        "object",
      );
    }
  });
}

function cliChecks(pipeline: PipelineDefinition, registry: Registry): void {
  it("refuses unknown settings at load with exit 2, naming file and key, writing nothing", async () => {
    const cwd = testTempDir("tm-conf-");
    writeFileSync(
      path.join(cwd, "tidemark.yaml"),
      `pipelines:\n  ${pipeline.name}:\n    no_such_setting: 1\n`,
    );
    const res = await runCli(["job", "ls"], { cwd, env: cliEnvFor(cwd), registry });
    expect(res.code).toBe(2);
    expect(res.stderr).toContain(`tidemark.yaml: pipelines.${pipeline.name}`);
    expect(res.stderr.trim().split("\n")).toHaveLength(1);
    expect(existsSync(path.join(cwd, "data"))).toBe(false);
  });

  it("--help lists its commands", async () => {
    const cwd = testTempDir("tm-conf-");
    for (const spec of pipeline.commands ?? []) {
      const res = await runCli([...spec.path.slice(0, -1), "--help"], { cwd, registry });
      expect(res.stdout, spec.path.join(" ")).toContain(spec.path.at(-1));
    }
  });

  it("its commands exit 2 on an unknown job, supplier or name", async () => {
    for (const spec of pipeline.commands ?? []) {
      const argv = unknownNameArgv(spec);
      if (!argv) continue;
      const cwd = testTempDir("tm-conf-");
      const res = await runCli(argv, { cwd, env: cliEnvFor(cwd), registry });
      expect({ argv, code: res.code }).toEqual({ argv, code: 2 });
      expect(res.stderr).toContain(NO_SUCH);
    }
  });
}

function fakeAndDemoChecks(pipeline: PipelineDefinition, registry: Registry): void {
  it.runIf(pipeline.fake)(
    "its fake starts standalone and says how to point Tidemark at it",
    async () => {
      const dataDir = testTempDir("tm-conf-fake-");
      const lines: string[] = [];
      const running = await pipeline.fake!.start({
        port: 0,
        host: "127.0.0.1",
        dataDir,
        print: (l) => lines.push(l),
      });
      try {
        expect(Object.keys(running.env).length + running.hints.length).toBeGreaterThan(0);
        for (const [name, value] of Object.entries(running.env)) {
          expect(name).toMatch(/^TIDEMARK_[A-Z0-9_]+$/);
          expect(value).not.toBe("");
        }
      } finally {
        await running.close();
      }
    },
  );

  it.runIf(pipeline.demo)("its demo runs in a fresh data dir", async () => {
    const cwd = testTempDir("tm-conf-demo-");
    const res = await runCli(["demo", "--only", pipeline.name, "--data-dir", "demo"], {
      cwd,
      registry,
    });
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain(path.join(cwd, "demo"));
  });
}
