/**
 * Python's `repr(float)` as `json.dumps` prints it.
 *
 * Both Python and JS produce the shortest digit string that round-trips, so only the
 * layout differs. Python writes value = 0.d1d2… × 10^decpt in fixed notation when
 * -4 < decpt <= 16 (i.e. 1e-4 <= |x| < 1e16), otherwise in scientific notation with a
 * signed exponent of at least two digits; integral fixed values get a `.0`.
 */

/** Format a double exactly like Python's `json.dumps(float)` (`1e-05`, `4.0`, `Infinity`). */
export function pythonFloatRepr(value: number): string {
  if (Number.isNaN(value)) return "NaN";
  if (value === Number.POSITIVE_INFINITY) return "Infinity";
  if (value === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (value === 0) return Object.is(value, -0) ? "-0.0" : "0.0";

  const magnitude = Math.abs(value);
  // JS also prints [1e-4, 1e16) in fixed notation (it keeps fixed from 1e-7 up to 1e21)
  // with the same digits and layout; Python only adds `.0` to integral values. The bounds
  // are exact: no double below 1e-4 or above 1e16 has a shortest form with another decpt.
  if (magnitude >= 1e-4 && magnitude < 1e16) {
    const fixed = String(value);
    return fixed.includes(".") ? fixed : `${fixed}.0`;
  }

  // toExponential() without an argument yields the same shortest digits as toString(),
  // always as `d.ddde±x`; Python differs only in padding the exponent to two digits.
  const exponential = value.toExponential();
  const ePos = exponential.indexOf("e");
  const expSign = exponential[ePos + 1];
  const expDigits = exponential.slice(ePos + 2);
  return `${exponential.slice(0, ePos)}e${expSign}${expDigits.length < 2 ? "0" : ""}${expDigits}`;
}
