// /api/email-analytics routes and the pipeline's figures on /metrics.
import { Registry as PromRegistry } from "prom-client";
import { expect, it } from "vitest";
import type { Queue } from "../../src/engine/queue/queue.ts";
import { emailAnalyticsPipeline } from "../../src/pipelines/email-analytics/index.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { testApp } from "../../src/testing/test-app.ts";
import {
  eaServices,
  minutesAgo,
  openEaRuntime,
  runFetch,
  seedNewsletter,
} from "./support/job-harness.ts";

const TOKEN = "t0ken-for-tests-0123456789";

describeEachDialect("email-analytics API routes", (h) => {
  it("status, schedule (POST/DELETE) and an email's stats; bad input 400, unknown email 404", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 3 });
    fake.addEvent({
      event: "delivered",
      timestamp: minutesAgo(10),
      recipient: s.members[0]!.email,
      emailId: s.emails[0]!.id,
    });
    await runFetch(runtime);
    const queue = { engine: "embedded", stats: async () => [] } as unknown as Queue;
    const app = testApp(runtime, { queue, tokens: [TOKEN] });
    const call = async (path: string, init: RequestInit = {}) => {
      const res = await app.request(`/api/email-analytics${path}`, {
        ...init,
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json" },
      });
      return { status: res.status, body: await res.json() };
    };
    const status = await call("/status");
    expect(status.status).toBe(200);
    expect(status.body.jobs[0]).toMatchObject({
      name: "email-analytics-latest-opened",
      status: "finished",
    });
    expect(status.body.running).toBe(false);

    const bad = await call("/schedule", {
      method: "POST",
      body: JSON.stringify({ begin: "2026-01-02T00:00:00Z", end: "2026-01-01T00:00:00Z" }),
    });
    expect(bad.status).toBe(400);
    // The engine's error shape, naming the body's fields (not the CLI's flags).
    expect(bad.body).toEqual({
      error: {
        code: "invalid_request",
        message: "end (2026-01-01T00:00:00.000Z) must be after begin (2026-01-02T00:00:00.000Z)",
      },
    });
    const garbled = await call("/schedule", {
      method: "POST",
      body: JSON.stringify({ begin: "yesterday", end: "2026-01-01T00:00:00Z" }),
    });
    expect(garbled.body.error.code).toBe("invalid_request");
    expect(garbled.body.error.message).toMatch(/^begin: expected an ISO-8601 time.*"yesterday"/);
    const impossible = await call("/schedule", {
      method: "POST",
      body: JSON.stringify({ begin: "2026-02-30T00:00:00Z", end: "2026-11-24T00:00:00Z" }),
    });
    expect(impossible.status).toBe(400);
    expect(impossible.body.error.message).toMatch(/^begin: .*"2026-02-30T00:00:00Z"/);
    expect((await call("/status")).body.scheduled).toBeNull();
    const ok = await call("/schedule", {
      method: "POST",
      body: JSON.stringify({ begin: "2026-01-01T00:00:00Z", end: "2026-01-02T00:00:00Z" }),
    });
    expect(ok.status).toBe(201);
    expect((await call("/status")).body.scheduled).toEqual({
      begin: "2026-01-01T00:00:00.000Z",
      end: "2026-01-02T00:00:00.000Z",
    });
    expect((await call("/schedule", { method: "DELETE" })).body).toEqual({ canceled: true });

    const stats = await call(`/emails/${s.emails[0]!.id}/stats`);
    expect(stats.status).toBe(200);
    expect(stats.body).toMatchObject({ id: s.emails[0]!.id, delivered_count: 1, email_count: 3 });
    const unknown = await call("/emails/ffffffffffffffffffffffff/stats");
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: "not_found" });
    expect(unknown.body.error.message).toMatch(/unknown email: ffffffffffffffffffffffff/);
  });

  it("publishes watermark age, last fetch figures and the lag warning on /metrics", async () => {
    const { runtime, fake, logs } = await openEaRuntime(h, {
      settings: { opened_lag_warning_minutes: 1 },
    });
    const s = await seedNewsletter(runtime, { members: 3 });
    fake.addEvent({
      event: "opened",
      timestamp: minutesAgo(20),
      recipient: s.members[0]!.email,
      emailId: s.emails[0]!.id,
    });
    const report = await runFetch(runtime);
    expect(report.summary.opened_lag_warning).toBe(true);
    expect(
      logs.some(
        (l) => l.level === "warn" && /Opened events processing is \d+ minutes behind/.test(l.msg),
      ),
    ).toBe(true);
    expect(logs.some((l) => l.level === "info" && /mode: BATCHED/.test(l.msg))).toBe(true);
    expect(logs.some((l) => /opened: 1 events in \d+ ms/.test(l.msg))).toBe(true);
    const register = new PromRegistry();
    await emailAnalyticsPipeline.metrics?.(register, eaServices(runtime));
    const text = await register.metrics();
    expect(text).toMatch(
      /tidemark_email_analytics_watermark_age_seconds\{job="email-analytics-latest-opened"\} \d+/,
    );
    expect(text).toMatch(
      /tidemark_email_analytics_last_fetch_events\{job="email-analytics-latest-opened"\} 1/,
    );
    expect(text).toMatch(
      /tidemark_email_analytics_last_fetch_events_by_type\{job="email-analytics-latest-opened",type="opened"\} 1/,
    );
    expect(text).toMatch(
      /tidemark_email_analytics_last_fetch_out_of_window\{job="email-analytics-latest-opened"\} 0/,
    );
    expect(text).toMatch(/tidemark_email_analytics_opened_lag_warning 1/);
    expect(text).toMatch(/tidemark_email_analytics_fetch_running 0/);
  });
});
