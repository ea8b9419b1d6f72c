/**
 * A benchmark's command line: `--name` flags and `--name value` options (a missing option
 * takes its fallback).
 */
export interface BenchArgs {
  flag(name: string): boolean;
  opt(name: string, fallback: string): string;
  /** A whole number ≥ `min` (default 1); anything else ends the process with a one-line error. */
  num(name: string, fallback: number, min?: number): number;
}

/** Why `text` is no value for `--name` (a whole number ≥ min), or undefined when it is one. */
export function numberProblem(name: string, text: string | undefined, min: number) {
  const value = Number(text);
  if (text !== undefined && text.trim() !== "" && Number.isInteger(value) && value >= min)
    return undefined;
  return `${name}: expected a whole number >= ${min}, got ${text === undefined ? "nothing" : JSON.stringify(text)}`;
}

export function benchArgs(argv: readonly string[] = process.argv.slice(2)): BenchArgs {
  const after = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    flag: (name) => argv.includes(name),
    opt: (name, fallback) => after(name) ?? fallback,
    num: (name, fallback, min = 1) => {
      if (!argv.includes(name)) return fallback;
      const problem = numberProblem(name, after(name), min);
      if (problem) {
        console.error(problem);
        process.exit(2);
      }
      return Number(after(name));
    },
  };
}

/** What a parent benchmark passes its child process: one JSON argument (`{}` when none). */
export function childInput<T>(): T {
  return JSON.parse(process.argv[2] ?? "{}") as T;
}
