// docs/pipelines/rakuten.md must be true to the code: its settings and its tables' columns.
import { readdirSync, readFileSync } from "node:fs";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { knobsPatch } from "../../src/pipelines/rakuten/fake/fake-control.ts";
import { reapplyParams } from "../../src/pipelines/rakuten/params.ts";
import { rakutenSettingsSchema } from "../../src/pipelines/rakuten/settings.ts";
import { ITEM_NULLABLE_TEXT } from "../../src/pipelines/rakuten/stages/normalize/normalize-item.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { openRakutenRuntime } from "./support/domain-runtime.ts";

const DOC = readFileSync(new URL("../../docs/pipelines/rakuten.md", import.meta.url), "utf8");

/** The `name` cells of the doc's table rows whose first cell is `` `prefix…` ``. */
function tableRows(prefix: string): Map<string, string> {
  const rows = new Map<string, string>();
  for (const line of DOC.split("\n")) {
    const m = /^\|\s*`([^`]+)`\s*\|(.*)$/.exec(line);
    if (m?.[1]?.startsWith(prefix)) rows.set(m[1], m[2] ?? "");
  }
  return rows;
}

describe("docs/pipelines/rakuten.md: settings", () => {
  it("lists every pipelines.rakuten key", () => {
    const documented = [...tableRows("").keys()].filter((k) => /^[a-z_]+$/.test(k));
    const keys = Object.keys(rakutenSettingsSchema.shape);
    for (const key of keys) expect(documented, key).toContain(key);
  });
});

describe("docs/pipelines/rakuten.md: normalization", () => {
  it("lists the item fields whose empty text becomes null", () => {
    const section = DOC.slice(DOC.indexOf("### Normalization"), DOC.indexOf("### The "));
    for (const field of ITEM_NULLABLE_TEXT) expect(section, field).toContain(`\`${field}\``);
  });
});

describe("docs/pipelines/rakuten.md: apply versions", () => {
  it("names every *_APPLY_VERSION constant of the pipeline and its file", () => {
    const root = new URL("../../src/pipelines/rakuten/", import.meta.url);
    const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) =>
      f.endsWith(".ts"),
    );
    const section = DOC.slice(DOC.indexOf("## Apply versions"), DOC.indexOf("## Raw store"));
    let found = 0;
    for (const file of files) {
      const text = readFileSync(new URL(file, root), "utf8");
      for (const m of text.matchAll(/export const (\w+_APPLY_VERSION) = /g)) {
        found += 1;
        expect(section, m[1]).toContain(`\`${m[1]}\``);
        expect(section, `${m[1]}'s file`).toContain(file.split("/").at(-1) ?? file);
      }
    }
    expect(found).toBeGreaterThanOrEqual(6);
  });

  it("say a normalization change goes through a fetching run, not the raw-store re-apply", () => {
    const section = DOC.slice(DOC.indexOf("## Apply versions"), DOC.indexOf("## Raw store"));
    // The raw store keeps documents as normalized when saved: re-applying them re-normalizes nothing.
    expect(section).toMatch(/normalization rule\*\* is different/);
    expect(section).toMatch(/as they were normalized when saved/);
  });
});

describe("docs/pipelines/rakuten.md: the fake", () => {
  it("names every fault knob POST /_fake/knobs accepts", () => {
    const section = DOC.slice(DOC.indexOf("## Trying it offline"), DOC.indexOf("## Benchmark"));
    for (const knob of Object.keys(knobsPatch.shape)) {
      expect(section, knob).toContain(`\`${knob}\``);
    }
  });
});

describe("rakuten.reapply params", () => {
  it("say its concurrency is about raw reads, not API requests (it makes none)", () => {
    expect(reapplyParams.shape.concurrency.description).toMatch(/raw/);
    expect(reapplyParams.shape.concurrency.description).not.toMatch(/rate limit/);
  });
});

describeEachDialect("docs/pipelines/rakuten.md: tables", (h) => {
  it("names each table's real columns, and no column the table lacks", async () => {
    const { rt } = await openRakutenRuntime(h);
    const pg = rt.db.dialect === "postgres";
    const tables = tableRows("apl.");
    expect(tables.size).toBe(13);
    for (const [table, cells] of tables) {
      const name = table.slice("apl.".length);
      const { rows } = pg
        ? await sql<{ name: string }>`select column_name as name from information_schema.columns
            where table_schema = 'apl' and table_name = ${name}`.execute(rt.db.kysely)
        : await sql<{ name: string }>`select name from pragma_table_info(${`apl_${name}`})`.execute(
            rt.db.kysely,
          );
      const real = rows.map((r) => r.name).sort();
      expect(real.length, table).toBeGreaterThan(0);
      // Column names are the backticked snake_case words of the row (values like `small` aside).
      const named = [...cells.matchAll(/`([a-z0-9_]+)`/g)].map((m) => m[1] ?? "");
      const columnLike = named.filter((n) => n.includes("_") || real.includes(n));
      for (const column of real) expect(named, `${table}.${column} documented`).toContain(column);
      for (const column of columnLike) {
        expect(real, `${table}.${column} in the docs exists`).toContain(column);
      }
    }
  });
});
