import { InvalidArgumentError } from "commander";

/** Largest count an option takes: what both databases accept as a LIMIT (a 32-bit integer). */
const MAX_COUNT = 2_147_483_647;

/** Commander parser for a positive integer option (`--limit 10`). */
export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError(`expected a positive integer, got ${JSON.stringify(value)}`);
  }
  if (Number(value) > MAX_COUNT) {
    throw new InvalidArgumentError(
      `expected a positive integer up to ${MAX_COUNT}, got ${JSON.stringify(value)}`,
    );
  }
  return Number(value);
}

/** Commander parser for a JSON option (`--params '{"a":1}'`). */
export function jsonValue(value: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    throw new InvalidArgumentError(`not valid JSON: ${(err as Error).message}`);
  }
  // Commander turns a parsed null into "" (as if no value were given): say what it was.
  if (parsed === null) throw new InvalidArgumentError("expected a JSON value other than null");
  return parsed;
}
