/**
 * A benchmark's command line: `--name` flags and `--name value` options (a missing option
 * takes its fallback).
 */
export interface BenchArgs {
  flag(name: string): boolean;
  opt(name: string, fallback: string): string;
  num(name: string, fallback: number): number;
}

export function benchArgs(argv: readonly string[] = process.argv.slice(2)): BenchArgs {
  const after = (name: string) => {
    const i = argv.indexOf(name);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  return {
    flag: (name) => argv.includes(name),
    opt: (name, fallback) => after(name) ?? fallback,
    num: (name, fallback) => (argv.includes(name) ? Number(after(name)) : fallback),
  };
}

/** What a parent benchmark passes its child process: one JSON argument (`{}` when none). */
export function childInput<T>(): T {
  return JSON.parse(process.argv[2] ?? "{}") as T;
}
