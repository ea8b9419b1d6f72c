/**
 * What `json.dumps(json.loads(lexeme))` prints for a JSON number lexeme.
 *
 * Python's json module turns a lexeme without `.`/`e`/`E` into an exact, unbounded `int`
 * and anything else into `float(lexeme)`; the output therefore depends on the lexeme,
 * not only on the numeric value (`4` vs `4.0`).
 */
import { pythonFloatRepr } from "./python-float-repr.ts";

/** True when Python's json.loads would read this lexeme as an `int`. */
export function isIntegerLexeme(lexeme: string): boolean {
  for (let i = 0; i < lexeme.length; i++) {
    const code = lexeme.charCodeAt(i);
    // '.', 'E', 'e'
    if (code === 0x2e || code === 0x45 || code === 0x65) return false;
  }
  return true;
}

/** Python's json.dumps text for a valid RFC 8259 number lexeme. */
export function pythonNumberFromLexeme(lexeme: string): string {
  if (isIntegerLexeme(lexeme)) {
    // RFC 8259 integers have no leading zeros, so the lexeme is already Python's str(int)
    // except for negative zero, which Python's int cannot represent.
    return lexeme === "-0" ? "0" : lexeme;
  }
  // Number() parses decimal strings with correct rounding, exactly like Python's float().
  return pythonFloatRepr(Number(lexeme));
}
