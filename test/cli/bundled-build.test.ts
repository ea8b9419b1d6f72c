import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildInstalledLayout } from "../../scripts/build.ts";
import { gitHead } from "../../src/infra/build/code-commit.ts";
import {
  prng,
  stockRow,
  writeCsvFile,
  writeSupplierConfig,
  writeXlsxFile,
} from "../../src/pipelines/snapshots/fake/supplier-files.ts";
import { spawnCli } from "../../src/testing/run-cli.ts";

// The installed CLI is the esbuild bundle, not the sources the other tests run: its chunks,
// worker entry modules and package-root lookups (docs/, package.json) must work as built.
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

describe("the bundled build (npm run build)", () => {
  let work: string;
  let bin: string;

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), "tidemark-bundle-"));
    bin = await buildInstalledLayout(path.join(work, "pkg"));
  }, 60_000);

  afterAll(() => rmSync(work, { recursive: true, force: true }));

  /** The built CLI on a data dir with its own SQLite database. */
  const cli = (argv: string[], dataDir: string) =>
    spawnCli(argv, {
      cwd: work,
      bin,
      env: {
        TIDEMARK_DATA_DIR: dataDir,
        TIDEMARK_DATABASE_URL: `sqlite:${path.join(dataDir, "tidemark.db")}`,
      },
    });

  it("worker threads load one small file each, not the CLI's chunks", () => {
    const dist = path.join(work, "pkg", "dist");
    for (const worker of ["csv-worker.js", "xlsx-worker.js"]) {
      const code = readFileSync(path.join(dist, worker), "utf8");
      // Each of up to four CSV threads parses this: the engine's public face must not drag
      // the HTTP client, the database layer or the fakes into it.
      expect(code, worker).not.toMatch(/from\s*["']\.\/chunk-/);
      expect(code, worker).not.toMatch(/["']node:http["']/);
    }
    // iconv-lite's code tables (~550 KB) load from node_modules, only for a legacy encoding.
    expect(readFileSync(path.join(dist, "csv-worker.js")).length).toBeLessThan(200_000);
    // The XLSX worker carries exceljs and its ZIP parser: no require of either at run time.
    const xlsx = readFileSync(path.join(dist, "xlsx-worker.js"), "utf8");
    expect(xlsx).toContain("node_modules/exceljs/lib/stream/xlsx/workbook-reader.js");
    expect(xlsx).not.toMatch(/\b(require|import)\(\s*["'](exceljs|unzipper)["']/);
  });

  it("answers --help and refuses an unknown command with exit 2", async () => {
    const help = await spawnCli(["--help"], { cwd: work, bin });
    expect(help.code, help.stderr).toBe(0);
    expect(help.stdout).toMatch(/Usage: tidemark/);
    const bad = await spawnCli(["no-such-command"], { cwd: work, bin });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/unknown command/);
  });

  it("explains a bad config value in English (zod's messages survive the bundle)", async () => {
    const cwd = mkdtempSync(path.join(work, "config-"));
    writeFileSync(path.join(cwd, "tidemark.yaml"), "server:\n  port: abc\n");
    const r = await spawnCli(["job", "ls"], { cwd, bin });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("server.port: Invalid input: expected number, received string");
  });

  it("ingests a CSV on worker threads and a multi-sheet XLSX on its worker", async () => {
    const dataDir = path.join(work, "data");
    const configDir = path.join(dataDir, "etl_ops", "config");
    const columns = `key: sku
file_stability_window: 0
columns:
  - { name: sku, type: string, required: true }
  - { name: qty, type: integer, required: true }
  - { name: price, type: decimal, minor_units: 2, as: price_minor, required: true }
  - { name: name, type: string }
`;
    await writeSupplierConfig(
      configDir,
      "big",
      `min_fact_count: 1\nmax_bad_ratio: 0.1\nallow_empty_snapshot: false\nformat: csv\ncategories: { from: column, column: category }\n${columns}`,
    );
    await writeSupplierConfig(
      configDir,
      "book",
      `min_fact_count: 1\nmax_bad_ratio: 0.1\nallow_empty_snapshot: false\nformat: xlsx\ncategories: { from: sheet }\n${columns}`,
    );
    const inbox = path.join(dataDir, "etl_data", "raw_v1", "inbox");
    // Above the 4 MB threshold of the CSV worker pool.
    await writeCsvFile(path.join(inbox, "big", "stock.csv"), 80_000);
    // Above the 1 MB threshold of the XLSX worker.
    const rnd = prng(7);
    await writeXlsxFile(
      path.join(inbox, "book", "book.xlsx"),
      Array.from({ length: 4 }, (_, s) => ({
        name: `Лист ${s + 1}`,
        rows: Array.from({ length: 12_000 }, (_, i) => stockRow(s * 12_000 + i, rnd)),
      })),
    );

    const csv = await cli(["snapshots", "run", "big", "--json"], dataDir);
    expect(csv.code, csv.stderr).toBe(0);
    expect(JSON.parse(csv.stdout).result).toMatchObject({ status: "PASS", good_rows: 80_000 });
    const xlsx = await cli(["snapshots", "run", "book", "--json"], dataDir);
    expect(xlsx.code, xlsx.stderr).toBe(0);
    expect(JSON.parse(xlsx.stdout).result).toMatchObject({ status: "PASS", good_rows: 48_000 });

    // The reason-code catalogue was found from the bundle's location; the build recorded its commit.
    const runs = path.join(dataDir, "etl_data", "raw_v1", "runs");
    const manifest = JSON.parse(
      readFileSync(path.join(runs, readdirSync(runs).sort()[0]!, "manifest.json"), "utf8"),
    ) as { status: string; code_commit: string };
    expect(manifest.status).toBe("PASS");
    expect(manifest.code_commit).toBe(gitHead(ROOT) ?? "unknown");
    const read = await cli(["snapshots", "read", "book"], dataDir);
    expect(read.code, read.stderr).toBe(0);
    expect(read.stdout.trim().split("\n")).toHaveLength(48_000);
  }, 120_000);
});
