import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { expect, it } from "vitest";
import { PARALLEL_MIN_BYTES } from "../../src/pipelines/snapshots/stages/parse/parse-input.ts";
import { indexLines } from "../../src/pipelines/snapshots/stages/publish/artifacts/key-lines.ts";
import {
  linesFromTable,
  lineTableOf,
} from "../../src/pipelines/snapshots/stages/publish/artifacts/line-table.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { CONFIG, type SnapHarness, snapshotHarness } from "./support/harness.ts";

/** A published bucket's line table locates and hashes its lines as reading its text does. */
function expectTableFits(bucket: string): void {
  const text = readFileSync(bucket);
  const fromTable = linesFromTable(text, readFileSync(lineTableOf(bucket)));
  const read = indexLines(text);
  expect(fromTable?.count).toBe(read.count);
  expect([...fromTable!.hash]).toEqual([...read.hash.subarray(0, read.count)]);
  expect([...fromTable!.idStart]).toEqual([...read.idStart.subarray(0, read.count)]);
}

/** allow_empty_snapshot on: a file misread as one header record would PASS empty under it. */
const ALLOW_EMPTY = CONFIG.replace("allow_empty_snapshot: false", "allow_empty_snapshot: true");

/** The last column is optional, so a file read as one header record maps without a gate FAIL. */
const HEADER = "sku,qty,price,name";

/** Enough rows for the file to go to worker threads (≥ PARALLEL_MIN_BYTES) with `workers: 2`. */
const ROWS = 80_000;

function rows(n = ROWS, name: (i: number) => string = (i) => `Молоток слесарный ${i}`): string[] {
  return Array.from({ length: n }, (_, i) => `A${i},${i % 50},${i % 7}.25,${name(i)}`);
}

function file(lines: string[], eol: string): string {
  const text = [HEADER, ...lines].join(eol) + eol;
  expect(Buffer.byteLength(text)).toBeGreaterThan(PARALLEL_MIN_BYTES);
  return text;
}

/** Facts without the run's id and supplier, for comparing two states. */
async function facts(t: SnapHarness, supplier: string) {
  return (await t.stateFacts(supplier)).map(({ run_id: _r, supplier: _s, ...f }) => f);
}

async function publishFirst(t: SnapHarness): Promise<string> {
  t.config("acme", ALLOW_EMPTY);
  await t.put("acme", "first.csv", `${HEADER}\nB1,5,1.00,x\nB2,3,2.50,y\n`, 120);
  const { result } = await t.ingest("acme");
  expect(result.status).toBe("PASS");
  return result.run_id;
}

/** A gate FAIL LINE_ENDING_LONE_CR: file in broken/, manifest FAIL, the previous state current. */
async function expectLoneCrFail(t: SnapHarness, name: string, previous: string) {
  const before = await facts(t, "acme");
  const { report, result } = await t.ingest("acme");
  expect(result).toMatchObject({ status: "FAIL", reason_code: "LINE_ENDING_LONE_CR" });
  expect(report.status).toBe("failed");
  expect(t.exists(`quarantine/acme/broken/${name}`)).toBe(true);
  expect(t.json(`runs/${result.run_id}/manifest.json`)).toMatchObject({
    status: "FAIL",
    fail_reason: "LINE_ENDING_LONE_CR",
    fail_detail: result.detail,
    input_filename: name,
  });
  expect((await t.storage.readCurrent("acme"))?.run_id).toBe(previous);
  expect(t.exists(`state_store/acme/${result.run_id}`)).toBe(false);
  expect(await facts(t, "acme")).toEqual(before);
  return result.detail ?? "";
}

describeEachDialect("snapshots gate: LF, CRLF and classic-Mac CR line ends; a mix fails", (h) => {
  for (const workers of [0, 2]) {
    it(`a classic-Mac (CR-only) CSV PASSes with the facts of its LF twin (workers: ${workers})`, async () => {
      const t = await snapshotHarness(h, { settings: { workers } });
      t.config("mac", ALLOW_EMPTY);
      t.config("lf", ALLOW_EMPTY);
      await t.put("mac", "mac.csv", file(rows(), "\r"));
      await t.put("lf", "lf.csv", file(rows(), "\n"));
      for (const s of ["mac", "lf"]) {
        const { result } = await t.ingest(s);
        expect(result).toMatchObject({ status: "PASS", good_rows: ROWS, bad_rows: 0 });
        expect(t.exists(`archive/${s}/accepted/${s}.csv`)).toBe(true);
      }
      const lf = await facts(t, "lf");
      expect(lf[ROWS - 1]).toMatchObject({
        row_number: ROWS + 1,
        payload: { sku: `A${ROWS - 1}` },
      });
      expect(await facts(t, "mac")).toEqual(lf);
    });

    it(`a classic-Mac CSV with one LF line FAILs naming that LF; nothing is published (workers: ${workers})`, async () => {
      const t = await snapshotHarness(h, { settings: { workers } });
      const prev = await publishFirst(t);
      const lines = rows();
      const at = 60_000;
      const head = [HEADER, ...lines.slice(0, at + 1)].join("\r");
      await t.put("acme", "mac.csv", `${head}\n${lines.slice(at + 1).join("\r")}\r`);
      const detail = await expectLoneCrFail(t, "mac.csv", prev);
      expect(detail).toBe(
        `inbox/acme/mac.csv: LF line ending at line ${at + 2} (byte offset ${Buffer.byteLength(head)}) in a file whose records end with a lone CR; records must all end the same way (LF, CRLF or CR)`,
      );
    });

    it(`a mostly-LF file with one lone CR FAILs with that CR's line and byte (workers: ${workers})`, async () => {
      const t = await snapshotHarness(h, { settings: { workers } });
      const prev = await publishFirst(t);
      const lines = rows();
      const at = 60_000;
      const lf = file(lines, "\n");
      const mixed = `${[HEADER, ...lines.slice(0, at + 1)].join("\n")}\r${lines.slice(at + 1).join("\n")}\n`;
      expect(mixed.length).toBe(lf.length);
      await t.put("acme", "mixed.csv", mixed);
      const byte = Buffer.byteLength(`${[HEADER, ...lines.slice(0, at + 1)].join("\n")}`);
      const detail = await expectLoneCrFail(t, "mixed.csv", prev);
      // Row `at` sits on line at + 2 (the header is line 1).
      expect(detail).toContain(`at line ${at + 2} (byte offset ${byte})`);
      expect(detail).toMatch(/^inbox\/acme\/mixed\.csv: /);
    });

    it(`LF and CRLF files PASS with the same facts (workers: ${workers})`, async () => {
      const t = await snapshotHarness(h, { settings: { workers } });
      t.config("lf", ALLOW_EMPTY);
      t.config("crlf", ALLOW_EMPTY);
      await t.put("lf", "f.csv", file(rows(), "\n"));
      await t.put("crlf", "f.csv", file(rows(), "\r\n"));
      for (const s of ["lf", "crlf"]) {
        const { result } = await t.ingest(s);
        expect(result).toMatchObject({ status: "PASS", good_rows: ROWS, bad_rows: 0 });
        // The key index is published as its buckets, each with the line table the CSV workers
        // wrote for it (for the next run's check; a file parsed on this thread has none), and
        // the run's folder keeps no work files.
        const keysDir = t.file(`state_store/${s}/${result.run_id}/keys`);
        const keys = readdirSync(keysDir);
        const buckets = keys.filter((f) => /^\d{4}\.tsv$/.test(f));
        expect(buckets.length).toBeGreaterThan(0);
        const tables = workers > 0 ? buckets.map((f) => f.replace(".tsv", ".lines")) : [];
        expect(keys.sort()).toEqual([...buckets, ...tables].sort());
        if (workers > 0) for (const f of buckets) expectTableFits(path.join(keysDir, f));
        expect(readdirSync(t.file(`runs/${result.run_id}`)).sort()).toEqual([
          "bad.ndjson",
          "facts.ndjson",
          "manifest.json",
          "stats.json",
        ]);
      }
      const lf = await facts(t, "lf");
      expect(lf).toHaveLength(ROWS);
      expect(lf[ROWS - 1]).toMatchObject({
        row_number: ROWS + 1,
        payload: { sku: `A${ROWS - 1}` },
      });
      expect(await facts(t, "crlf")).toEqual(lf);
    });

    it(`quoted fields holding \\r, \\n or \\r\\n still PASS, the breaks kept as data (workers: ${workers})`, async () => {
      const t = await snapshotHarness(h, { settings: { workers } });
      const breaks = ["\r", "\r\n", "\n", "\r\r"];
      const name = (i: number) =>
        i % 1000 === 0 ? `"до${breaks[(i / 1000) % 4]}после ${i}"` : `Молоток слесарный ${i}`;
      for (const eol of ["\n", "\r\n"]) {
        const supplier = eol === "\n" ? "lf" : "crlf";
        t.config(supplier, ALLOW_EMPTY);
        await t.put(supplier, "f.csv", file(rows(ROWS, name), eol));
        const { result } = await t.ingest(supplier);
        expect(result).toMatchObject({ status: "PASS", good_rows: ROWS, bad_rows: 0 });
        const out = await facts(t, supplier);
        const bySku = new Map(out.map((f) => [(f.payload as { sku: string }).sku, f]));
        expect(bySku.get("A1000")?.payload).toMatchObject({ name: "до\r\nпосле 1000" });
        expect(bySku.get("A2000")?.payload).toMatchObject({ name: "до\nпосле 2000" });
        expect(bySku.get("A3000")?.payload).toMatchObject({ name: "до\r\rпосле 3000" });
        expect(bySku.get("A4000")?.payload).toMatchObject({ name: "до\rпосле 4000" });
        // A line break inside quotes counts as a line: A1001 starts one line later than before.
        expect(bySku.get("A1001")?.row_number).toBe(1001 + 3);
        expect(bySku.get("A4001")?.row_number).toBe(4001 + 2 + 2);
      }
      expect(await facts(t, "crlf")).toEqual(await facts(t, "lf"));
    });
  }
});
