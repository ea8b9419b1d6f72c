import type { DemoContext } from "tidemark";
import { startRegistryFake } from "./fake/registry-fake.ts";

/** One line per run: what it found and where its cursor went. */
function runLine(label: string, run: { status: string; summary: Record<string, unknown> }): string {
  const s = run.summary;
  return `${label}: ${run.status}, ${s.changed ?? 0} changed, ${s.unchanged_skipped ?? 0} unchanged, ${s.removed ?? 0} removed; feed ${s.cursor_before} → ${s.cursor_after}`;
}

/**
 * `tidemark demo --only registry-feed`: follows the fake registry's feed — a first load, a run
 * with nothing new, a run after two publishes and an unpublish — then a run against a feed of
 * the wrong shape, which fails and keeps the cursor.
 */
export async function runDemo(ctx: DemoContext): Promise<void> {
  const fake = await startRegistryFake({ count: 40 });
  try {
    // The demo's runs talk to its fake only, whatever the shell exports.
    const settings = { base_url: fake.url, requests_per_second: 1000 };
    const run = () => ctx.runJob({ job: "registry", type: "registry-feed.follow", settings });
    const { catalogue } = fake;
    ctx.print(
      `Fake registry at ${fake.url}: ${catalogue.packages.size} packages, ${catalogue.lastSeq} changes`,
    );
    ctx.print(runLine("Run 1 (the whole feed)", await run()));
    ctx.print(runLine("Run 2 (nothing new)", await run()));
    catalogue.publish("left-pad", "2.0.0");
    catalogue.publish("tiny-json", "1.0.0");
    catalogue.unpublish("quick-pad");
    ctx.print(runLine("Run 3 (2 published, 1 removed)", await run()));
    fake.fault = "wrong-shape";
    const failed = await run();
    ctx.print(
      `Run 4 (a feed page of the wrong shape): ${failed.status}: ${failed.error?.split("; body:")[0] ?? ""}`,
    );
    ctx.print(`The runs: ${ctx.command("runs ls --job registry")}`);
  } finally {
    await fake.close();
  }
}
