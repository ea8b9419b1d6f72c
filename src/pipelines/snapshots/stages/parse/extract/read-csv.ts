import type { RowEmitter } from "../../quality/emit/row-emitter.ts";
import { type CompiledSchema, GateFailure, mapHeader } from "../../quality/emit/schema.ts";
import type { ByteSource } from "../input/byte-source.ts";
import { createChunkDecoder, EncodingError, encodingFromBom } from "../input/text-decoder.ts";
import { TextOffsets } from "../input/text-offsets.ts";
import { CrLineEnds } from "./cr-line-ends.ts";
import { CsvRecordParser, CsvSyntaxError, LoneCrError, MixedLineEndError } from "./csv-records.ts";

/** How to read a delimited text file. */
export interface CsvOptions {
  encoding: string;
  delimiter: string;
  quote: string;
  schema: CompiledSchema;
  emitter: RowEmitter;
  /** The file as named in gate details (its storage key). */
  file?: string;
  /** Checked between chunks; a set signal stops the read with its reason. */
  signal?: AbortSignal;
  /** Called after each chunk (progress, test hooks). */
  onChunk?: (bytes: number) => void;
}

/** What the CSV read found beyond the emitted rows. */
export interface CsvReadInfo {
  /** Encoding actually used (a BOM overrides the configuration). */
  encoding: string;
  /** The facts were written with direct I/O (worker threads, see direct-facts.ts). */
  directWrites?: boolean;
}

/** mapHeader, with a hint when the header is one field holding another likely delimiter. */
export function mapCsvHeader(o: Pick<CsvOptions, "schema" | "delimiter">, fields: string[]) {
  try {
    return mapHeader(o.schema, fields);
  } catch (err) {
    const other = [";", "\t", ",", "|"].find((d) => d !== o.delimiter && fields[0]?.includes(d));
    if (err instanceof GateFailure && fields.length === 1 && other !== undefined) {
      throw new GateFailure(
        err.reason,
        `${err.detail} (delimiter is ${JSON.stringify(o.delimiter)}, the header contains ${JSON.stringify(other)})`,
      );
    }
    throw err;
  }
}

/**
 * The gate FAIL of a lone CR at `line`, `byte` bytes from the start of the file, or (`mixed`) of
 * an LF line end there in a file whose records end with a lone CR.
 */
export function loneCrFailure(
  file: string | undefined,
  line: number,
  byte: number | undefined,
  mixed = false,
): GateFailure {
  const at = byte === undefined ? `line ${line}` : `line ${line} (byte offset ${byte})`;
  if (mixed) {
    return new GateFailure(
      "LINE_ENDING_LONE_CR",
      `${file ?? "the file"}: LF line ending at ${at} in a file whose records end with a lone CR; records must all end the same way (LF, CRLF or CR)`,
    );
  }
  return new GateFailure(
    "LINE_ENDING_LONE_CR",
    `${file ?? "the file"}: lone CR line ending at ${at}; records must end with LF or CRLF`,
  );
}

/** The gate FAIL of bytes invalid in the encoding; `message` says where (EncodingError's). */
export function encodingFailure(
  file: string | undefined,
  message: string,
  configured: string,
): GateFailure {
  return new GateFailure(
    "ENCODING_INVALID",
    `${file ?? "the file"}: ${message} (encoding: ${configured})`,
  );
}

/**
 * Extractor for CSV: decodes, splits records, maps the header (gate schema check) and
 * feeds data rows to the emitter. Gate problems are thrown as GateFailure.
 */
export async function readCsv(source: ByteSource, o: CsvOptions): Promise<CsvReadInfo> {
  const decoder = createChunkDecoder(o.encoding, source.head);
  let headerSeen = false;
  const parser = new CsvRecordParser(
    o.delimiter,
    o.quote,
    (fields, line, malformed) => {
      if (!headerSeen) {
        headerSeen = true;
        o.emitter.begin(mapCsvHeader(o, fields), undefined, true);
        return;
      }
      o.emitter.row(fields, line, malformed);
    },
    { loneCr: "error" },
  );
  // The decoder drops the BOM; byte offsets in gate details count from the file's first byte.
  const bom = encodingFromBom(source.head);
  const offsets = new TextOffsets(
    decoder.encoding,
    bom === undefined ? 0 : bom === "utf-8" ? 3 : 2,
  );
  // A classic-Mac file's record ends reach the parser as LF.
  const lineEnds = new CrLineEnds(o.delimiter, o.quote);
  const push = (text: string) => {
    offsets.add(text);
    parser.push(lineEnds.text(text));
  };
  let bytes = 0;
  try {
    for await (const chunk of source.chunks) {
      o.signal?.throwIfAborted();
      push(decoder.write(chunk));
      bytes += chunk.length;
      o.onChunk?.(bytes);
    }
    push(decoder.end());
    if (lineEnds.end() !== undefined) parser.push("\n");
    parser.end();
  } catch (err) {
    if (err instanceof LoneCrError) {
      const mixed = err instanceof MixedLineEndError;
      throw loneCrFailure(o.file, err.line, offsets.byteAt(err.offset), mixed);
    }
    if (err instanceof EncodingError) throw encodingFailure(o.file, err.message, o.encoding);
    if (err instanceof CsvSyntaxError) throw new GateFailure("FILE_UNREADABLE", err.message);
    throw err;
  }
  if (!headerSeen) throw new GateFailure("HEADER_MISMATCH", "no header row (the file is blank)");
  return { encoding: decoder.encoding };
}
