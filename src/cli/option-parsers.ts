import { InvalidArgumentError } from "commander";

/** Commander parser for a positive integer option (`--limit 10`). */
export function positiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError(`expected a positive integer, got ${JSON.stringify(value)}`);
  }
  return Number(value);
}

/** Commander parser for a JSON option (`--params '{"a":1}'`). */
export function jsonValue(value: string): unknown {
  try {
    return JSON.parse(value);
  } catch (err) {
    throw new InvalidArgumentError(`not valid JSON: ${(err as Error).message}`);
  }
}
