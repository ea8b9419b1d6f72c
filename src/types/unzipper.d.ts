/**
 * Minimal types for unzipper 0.10 (exceljs's ZIP parser, which the XLSX reader drives itself);
 * it ships none. Only the streaming parser is used.
 */
declare module "unzipper" {
  import type { Duplex } from "node:stream";

  const unzipper: {
    /** A stream that takes ZIP bytes and gives one readable entry per file inside. */
    Parse(options: { forceStream: true }): Duplex;
  };
  export default unzipper;
}
