// A file still inside file_stability_window: the run says so, and when it will be taken.
import { expect, it } from "vitest";
import { MINIMAL_CONFIG } from "../../src/pipelines/snapshots/fake/supplier-files.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { cliFixture } from "./support/cli.ts";
import { csv } from "./support/harness.ts";

describeEachDialect("a file just dropped", (h) => {
  it("is named with file_stability_window and the moment it will be taken", async () => {
    const f = await cliFixture(h);
    f.config("acme", MINIMAL_CONFIG);
    f.put("acme", "stock.csv", csv("A1,Молоток,5,100.00"), 0);
    const r = await f.run(["snapshots", "run", "acme"]);
    const text = r.stdout + r.stderr;
    expect(text).toMatch(
      /stock\.csv changed less than file_stability_window \(\d+ s\) ago; it is taken by a run after \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ \(in \d+ (s|min)\) if unchanged/,
    );
    expect(text).not.toContain("still arriving");
  });
});
