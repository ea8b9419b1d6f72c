import type { RowEmitter } from "../emit/row-emitter.ts";
import { type CompiledSchema, GateFailure, mapHeader } from "../emit/schema.ts";
import type { ByteSource } from "../input/byte-source.ts";
import { createChunkDecoder, EncodingError } from "../input/text-decoder.ts";
import { CsvRecordParser, CsvSyntaxError } from "./csv-records.ts";

/** How to read a delimited text file. */
export interface CsvOptions {
  encoding: string;
  delimiter: string;
  quote: string;
  schema: CompiledSchema;
  emitter: RowEmitter;
  /** Checked between chunks; a set signal stops the read with its reason. */
  signal?: AbortSignal;
  /** Called after each chunk (progress, test hooks). */
  onChunk?: (bytes: number) => void;
}

/** What the CSV read found beyond the emitted rows. */
export interface CsvReadInfo {
  /** Encoding actually used (a BOM overrides the configuration). */
  encoding: string;
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
 * Extractor for CSV (§16): decodes, splits records, maps the header (gate schema check) and
 * feeds data rows to the emitter. Gate problems are thrown as GateFailure.
 */
export async function readCsv(source: ByteSource, o: CsvOptions): Promise<CsvReadInfo> {
  const decoder = createChunkDecoder(o.encoding, source.head);
  let headerSeen = false;
  const parser = new CsvRecordParser(o.delimiter, o.quote, (fields, line, malformed) => {
    if (!headerSeen) {
      headerSeen = true;
      o.emitter.begin(mapCsvHeader(o, fields), undefined, true);
      return;
    }
    o.emitter.row(fields, line, malformed);
  });
  let bytes = 0;
  try {
    for await (const chunk of source.chunks) {
      o.signal?.throwIfAborted();
      parser.push(decoder.write(chunk));
      bytes += chunk.length;
      o.onChunk?.(bytes);
    }
    parser.push(decoder.end());
    parser.end();
  } catch (err) {
    if (err instanceof EncodingError) {
      throw new GateFailure("ENCODING_INVALID", `${err.message} (${o.encoding})`);
    }
    if (err instanceof CsvSyntaxError) throw new GateFailure("FILE_UNREADABLE", err.message);
    throw err;
  }
  if (!headerSeen) throw new GateFailure("HEADER_MISMATCH", "no header row (the file is blank)");
  return { encoding: decoder.encoding };
}
