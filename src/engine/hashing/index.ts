/** Content hashing byte-identical to Python's sorted, compact `json.dumps` + SHA-256. */
export {
  CanonicalJsonError,
  canonicalJson,
  compareCodePoints,
  writeCanonicalJson,
} from "./canonical-json.ts";
export {
  canonicalJsonAndHash,
  contentHash,
  contentHashOfJsonText,
  sha256Hex,
} from "./content-hash.ts";
export { JsonNumber, type JsonObject, type JsonValue } from "./json-value.ts";
export { JsonSyntaxError, parseJsonLossless } from "./lossless-json.ts";
export { pythonFloatRepr } from "./python-float-repr.ts";
export { isIntegerLexeme, pythonNumberFromLexeme } from "./python-number-lexeme.ts";
