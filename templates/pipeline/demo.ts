import type { DemoContext } from "tidemark";
import { startStarterKitFake } from "./fake/starter-kit-fake.ts";

/** One line per run: what it found and where its cursor went. */
function runLine(label: string, run: { status: string; summary: Record<string, unknown> }): string {
  const s = run.summary;
  return `${label}: ${run.status}, ${s.changed ?? 0} changed, ${s.unchanged_skipped ?? 0} unchanged (skipped), ${s.pages ?? 0} page(s)`;
}

/**
 * `tidemark demo --only starter-kit`: the sync against the fake three times — a first load, a
 * run that finds nothing new, and a run after three records changed — then a run against a
 * page of the wrong shape, which fails and keeps the cursor.
 */
export async function runDemo(ctx: DemoContext): Promise<void> {
  const fake = await startStarterKitFake({ count: 120 });
  try {
    // The demo's runs talk to its fake only, whatever the shell exports.
    const settings = { base_url: fake.url, requests_per_second: 1000 };
    const run = () => ctx.runJob({ job: "records", type: "starter-kit.sync", settings });
    ctx.print(`Fake Starter Kit API at ${fake.url}: ${fake.records.length} records`);
    ctx.print(runLine("Run 1 (first load)", await run()));
    ctx.print(runLine("Run 2 (nothing changed)", await run()));
    fake.touch(3);
    ctx.print(runLine("Run 3 (3 records edited)", await run()));
    fake.fault = "wrong-shape";
    const failed = await run();
    ctx.print(
      `Run 4 (a page of the wrong shape): ${failed.status}: ${failed.error?.split("; body:")[0] ?? ""}`,
    );
    ctx.print(`The runs: ${ctx.command("runs ls --job records")}`);
  } finally {
    await fake.close();
  }
}
