/**
 * BENCH_SQL_PROFILE=1: times every SQLite statement of the process by its SQL text (better-sqlite3
 * statements are synchronous, so the wall time of `run`/`all`/`get` is the database's time), to
 * tell which statements a phase spends its time in. Prints the top statements to stderr at exit.
 */
import Database from "better-sqlite3";

interface Totals {
  ms: number;
  calls: number;
}

const totals = new Map<string, Totals>();

/** Wraps the Statement methods once; call before any database is opened. */
export function installSqlProfile(): void {
  const probe = new Database(":memory:");
  const proto = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, unknown>;
  probe.close();
  for (const name of ["run", "all", "get", "iterate"]) {
    const original = proto[name] as (...a: unknown[]) => unknown;
    proto[name] = function (this: { source: string }, ...a: unknown[]) {
      const t = performance.now();
      try {
        return original.apply(this, a);
      } finally {
        const sql = this.source
          .replace(/\s+/g, " ")
          .replace(/\(\?(, \?)+\)/g, "(?…)")
          .slice(0, 160);
        const s = totals.get(sql) ?? { ms: 0, calls: 0 };
        s.ms += performance.now() - t;
        s.calls++;
        totals.set(sql, s);
      }
    };
  }
  process.once("exit", () => {
    const top = [...totals].sort((a, b) => b[1].ms - a[1].ms).slice(0, 15);
    const all = [...totals.values()].reduce((s, x) => s + x.ms, 0);
    process.stderr.write(`SQL total ${all.toFixed(0)} ms\n`);
    for (const [sql, s] of top) {
      process.stderr.write(
        `${s.ms.toFixed(0).padStart(8)} ms ${String(s.calls).padStart(8)} calls ${(s.ms / s.calls).toFixed(3)} ms/call  ${sql}\n`,
      );
    }
  });
}
