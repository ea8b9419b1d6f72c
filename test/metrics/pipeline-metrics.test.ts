import { Registry as PromRegistry } from "prom-client";
import { expect, it } from "vitest";
import { Registry } from "../../src/engine/registry/registry.ts";
import { pipelineServices } from "../../src/engine/runs/pipeline-services.ts";
import { pipelines } from "../../src/pipelines/index.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { lintExposition } from "../../src/testing/exposition-lint.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";

describeEachDialect("pipelines' metrics follow promtool's rules", (h) => {
  it("every registered pipeline's metrics pass (names, _total, units, HELP in plain words)", async () => {
    const runtime = await openTestRuntime(h, { registry: new Registry(pipelines) });
    let checked = 0;
    for (const pipeline of pipelines) {
      if (!pipeline.metrics) continue;
      const register = new PromRegistry();
      await pipeline.metrics(register, pipelineServices(runtime, pipeline.name));
      const text = await register.metrics();
      expect(text, pipeline.name).toMatch(/^# TYPE /m);
      expect(lintExposition(text), pipeline.name).toEqual([]);
      checked++;
    }
    // Snapshots publishes metrics: a check that saw none would prove nothing.
    expect(checked).toBeGreaterThan(0);
  });
});
