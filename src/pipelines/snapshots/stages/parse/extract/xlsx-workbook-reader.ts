/**
 * exceljs's streaming WorkbookReader (4.4.0) with its ZIP entry loop replaced, for two bugs:
 *
 * - Lost entries (exceljs#683). Its loop iterates the unzipper Parse stream with
 *   `iterateStream`, which takes entries from 'data' events and stops at 'end'; but Parse emits
 *   'end' as soon as its writable side finishes, while entries it already parsed may still wait
 *   in its readable buffer. When the loop is slower than the parser (it copies worksheets
 *   stored before xl/sharedStrings.xml to temp files, slower with a deeper TMPDIR) the entries
 *   after the current one are dropped: no shared strings (cells read as `{sharedString: n}`), no
 *   sheet names, sometimes no worksheets. Reading the stream with its own async iterator
 *   (`read()` until the buffer is empty) delivers every entry.
 * - Temp files left behind. It copies those worksheets with `tmp` into TMPDIR and deletes each
 *   only after its sheet is read, so a read that stops early (or a worker thread terminated
 *   first) leaves them. Here they go to `spoolDir`, a folder owned by the caller, and each read
 *   deletes its own files when it ends, however it ends.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import type { Duplex, Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type ExcelJS from "exceljs";

/** An unzipper entry. */
interface ZipEntry extends Readable {
  path: string;
  autodrain(): unknown;
}

/** What the reader yields (exceljs's parse events). */
interface ReaderEvent {
  eventType: string;
  value: unknown;
}

/** The exceljs WorkbookReader internals (lib/stream/xlsx/workbook-reader.js) the loop uses. */
interface ReaderInternals {
  input: Readable;
  stream: Readable;
  sharedStrings?: unknown[];
  workbookRels?: unknown;
  model?: unknown;
  _parseRels(entry: ZipEntry): Promise<void>;
  _parseWorkbook(entry: ZipEntry): Promise<void>;
  _parseSharedStrings(entry: ZipEntry): AsyncGenerator<ReaderEvent>;
  _parseStyles(entry: ZipEntry): Promise<void>;
  _parseWorksheet(chunks: AsyncIterable<unknown>, sheetNo: string): Generator<ReaderEvent>;
  _parseHyperlinks(chunks: AsyncIterable<unknown>, sheetNo: string): Generator<ReaderEvent>;
}

/** exceljs's own entry patterns. */
const WORKSHEET = /xl\/worksheets\/sheet(\d+)[.]xml/;
const HYPERLINKS = /xl\/worksheets\/_rels\/sheet(\d+)[.]xml.rels/;

/** The file's chunks, opened only when a reader iterates them (no descriptor for unread sheets). */
const fileChunks = (file: string): AsyncIterable<unknown> => ({
  async *[Symbol.asyncIterator]() {
    yield* createReadStream(file);
  },
});

/** unzipper's Parse, with the method that reads the ZIP's last record (its end). */
interface ZipParse extends Duplex {
  _readEndOfCentralDirectoryRecord(): PromiseLike<void>;
}

/**
 * Pipes `input` into `zip` and watches it, so that every way a read can fail ends the read.
 * Parse reports a bad entry on itself, not on the entry being read, and pipe() does not pass
 * input errors on: either must end the entry being read, or its reader would wait forever.
 * Parse may also report the error between entries, with the next entry already in its buffer
 * (a truncated file), or after its readable side ended (it ends it when its input ends,
 * complete or not): so the error is kept, any later entry fails at once, and `complete` settles
 * only when the end-of-central-directory record was read (or rejects with the error).
 */
function watchZip(zip: Duplex, input: Readable) {
  let current: ZipEntry | undefined;
  let failure: Error | undefined;
  let settle: { resolve(): void; reject(e: Error): void } | undefined;
  const complete = new Promise<void>((resolve, reject) => {
    settle = { resolve, reject };
  });
  // Awaited only after the entries are read: an early stop must not leave it rejected unheard.
  complete.catch(() => {});
  let stopped = false;
  const onError = (err: Error) => {
    if (stopped) return;
    failure ??= err;
    current?.destroy(err);
    settle?.reject(err);
  };
  const endZip = (err: Error) => zip.destroy(err);
  const parse = zip as ZipParse;
  const readEnd = parse._readEndOfCentralDirectoryRecord;
  parse._readEndOfCentralDirectoryRecord = function (this: ZipParse) {
    return readEnd.call(this).then(() => settle?.resolve());
  };
  zip.on("error", onError);
  input.on("error", endZip);
  input.pipe(zip);
  return {
    complete,
    /** Marks `entry` as the one being read; throws if the ZIP already failed. */
    enter(entry: ZipEntry) {
      current = entry;
      if (failure) throw failure;
    },
    leave() {
      current = undefined;
    },
    /** Detaches from the input and ends the ZIP (whose late reports onError then ignores). */
    stop() {
      stopped = true;
      current = undefined;
      input.off("error", endZip);
      input.unpipe(zip);
      zip.destroy();
    },
  };
}

type Options = Partial<ExcelJS.stream.xlsx.WorkbookStreamReaderOptions>;
type Reader = AsyncIterable<ExcelJS.stream.xlsx.WorksheetReader>;

let readerClass: Promise<new (input: Readable, o: Options, spoolDir: string) => Reader> | undefined;

async function defineReader() {
  // Loaded on demand: CSV runs (and the main thread of a worker-read XLSX) never need it. The
  // ZIP parser is the one exceljs itself depends on and is written against (the same range in
  // package.json, so one copy is installed, and the worker's bundle holds one copy of both).
  const [{ default: Excel }, { default: unzipper }] = await Promise.all([
    import("exceljs"),
    import("unzipper"),
  ]);

  return class SpoolingWorkbookReader extends Excel.stream.xlsx.WorkbookReader {
    readonly spoolDir: string;

    constructor(input: Readable, options: Options, spoolDir: string) {
      super(input, options);
      this.spoolDir = spoolDir;
    }

    /** exceljs's parse(), reading every entry and spooling into `spoolDir`. */
    override async *parse(): AsyncGenerator<ReaderEvent> {
      const self = this as unknown as ReaderInternals;
      const zip = unzipper.Parse({ forceStream: true });
      self.stream = self.input;
      const watch = watchZip(zip, self.input);
      const spooled: Array<{ sheetNo: string; file: string }> = [];
      try {
        // Not destroyed by the loop: on its way out it would report an AbortError as the ZIP's.
        for await (const entry of zip.iterator({
          destroyOnReturn: false,
        }) as AsyncIterable<ZipEntry>) {
          watch.enter(entry);
          switch (entry.path) {
            case "xl/_rels/workbook.xml.rels":
              await self._parseRels(entry);
              break;
            case "xl/workbook.xml":
              await self._parseWorkbook(entry);
              break;
            case "xl/sharedStrings.xml":
              yield* self._parseSharedStrings(entry);
              break;
            case "xl/styles.xml":
              await self._parseStyles(entry);
              break;
            default: {
              const sheet = WORKSHEET.exec(entry.path);
              const links = sheet ? null : HYPERLINKS.exec(entry.path);
              if (sheet) {
                // Sheet names come from workbook.xml: without it exceljs throws reading them.
                if (self.sharedStrings && self.workbookRels && self.model) {
                  yield* self._parseWorksheet(entry, sheet[1]!);
                } else {
                  const file = path.join(this.spoolDir, `sheet-${spooled.length}.xml`);
                  spooled.push({ sheetNo: sheet[1]!, file });
                  await pipeline(entry, createWriteStream(file));
                }
              } else if (links) yield* self._parseHyperlinks(entry, links[1]!);
            }
          }
          watch.leave();
          entry.autodrain();
        }
        await watch.complete;
        while (spooled.length > 0) {
          const { sheetNo, file } = spooled[0]!;
          yield* self._parseWorksheet(fileChunks(file), sheetNo);
          spooled.shift();
          await rm(file, { force: true });
        }
      } finally {
        watch.stop();
        await Promise.all(spooled.map((s) => rm(s.file, { force: true })));
      }
    }
  };
}

/**
 * A streaming workbook reader: iterate it for its worksheets. Worksheets stored before the
 * shared strings are copied to files in `spoolDir` (which must exist; the caller owns it) and
 * deleted when read or when the iteration ends.
 */
export async function openWorkbookReader(
  input: Readable,
  options: Options,
  spoolDir: string,
): Promise<Reader> {
  readerClass ??= defineReader();
  return new (await readerClass)(input, options, spoolDir);
}
