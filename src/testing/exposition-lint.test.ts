import { describe, expect, it } from "vitest";
import { lintExposition } from "./exposition-lint.ts";

/** One family in exposition format with one sample line. */
const family = (name: string, type: string, help: string, sample = `${name} 1`) =>
  `# HELP ${name} ${help}\n# TYPE ${name} ${type}\n${sample}\n`;

describe("lintExposition", () => {
  it("passes well-named counters, gauges and histograms", () => {
    const text = [
      family("app_jobs_total", "counter", "Jobs", 'app_jobs_total{job_name="a"} 1'),
      family("app_queue_depth", "gauge", "Depth"),
      family("app_wait_seconds", "histogram", "Wait", 'app_wait_seconds_bucket{le="1"} 1'),
    ].join("");
    expect(lintExposition(`${text}app_wait_seconds_sum 1\napp_wait_seconds_count 1\n`)).toEqual([]);
  });

  it("reports each rule promtool applies, naming the metric", () => {
    const cases: Array<[string, string]> = [
      [
        family("app_jobs", "counter", "Jobs"),
        'app_jobs: counter metrics should have "_total" suffix',
      ],
      [
        family("app_open_total", "gauge", "Open"),
        'app_open_total: non-counter metrics should not have "_total" suffix',
      ],
      [family("app_up", "gauge", ""), "app_up: no help text"],
      [
        family("app_wait_milliseconds", "gauge", "Wait"),
        'app_wait_milliseconds: use base unit "seconds" instead of "milliseconds"',
      ],
      [
        family("app_wait_ms", "gauge", "Wait"),
        "app_wait_ms: metric names should not contain abbreviated units",
      ],
      [
        family("app_runs_gauge", "gauge", "Runs"),
        "app_runs_gauge: metric name should not include type 'gauge'",
      ],
      [family("app:runs", "gauge", "Runs"), "app:runs: metric names should not contain ':'"],
      [
        family("app_queueDepth", "gauge", "Depth"),
        "app_queueDepth: metric names should be written in 'snake_case' not 'camelCase'",
      ],
      [
        family("app_depth", "gauge", "Depth", 'app_depth{queueName="a"} 1'),
        "app_depth: label names should be written in 'snake_case' not 'camelCase' (queueName)",
      ],
      [
        family("app_rows_count", "gauge", "Rows"),
        'app_rows_count: non-histogram and non-summary metrics should not have "_count" or "_sum" suffix',
      ],
      [
        family("app_depth", "gauge", "Depth", 'app_depth{le="1"} 1'),
        'app_depth: non-histogram metrics should not have "le" label',
      ],
      [
        family("app_age_seconds", "gauge", "Age since the switch (seed 002 §14)"),
        "app_age_seconds: help text should not use internal references (§, seed numbers)",
      ],
    ];
    for (const [text, problem] of cases) expect(lintExposition(text)).toEqual([problem]);
  });
});
