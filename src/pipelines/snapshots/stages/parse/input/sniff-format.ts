import { encodingFromBom } from "./text-decoder.ts";

/** What the first bytes of a file say it is. */
export type SniffedFormat = "xlsx" | "csv" | "xls" | "binary";

/** Bytes read from the start of a file to decide its format. */
export const SNIFF_BYTES = 8192;

/**
 * Classifies a file by content, never by name: a ZIP container is taken as XLSX (the reader
 * then checks it is a workbook), the OLE header of legacy `.xls` and NUL bytes in
 * BOM-less text mean "not a delimited text file".
 */
export function sniffFormat(head: Uint8Array): SniffedFormat {
  if (head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04) return "xlsx";
  if (head[0] === 0xd0 && head[1] === 0xcf && head[2] === 0x11 && head[3] === 0xe0) return "xls";
  const bom = encodingFromBom(head);
  if (bom === "utf-16le" || bom === "utf-16be") return "csv";
  if (head.includes(0)) return "binary";
  return "csv";
}
