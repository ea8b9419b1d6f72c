// A wrong API key or domain: the run's error says which setting to fix, never the key itself.
import { expect, it } from "vitest";
import { exitCodeFor } from "../../src/engine/runs/job-runner.ts";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { spread } from "./support/cycle-events.ts";
import { minutesAgo, openEaRuntime, runFetch, seedNewsletter } from "./support/job-harness.ts";

describeEachDialect("email-analytics Mailgun refusals", (h) => {
  it("a 401 names MAILGUN_API_KEY and the domain, and fails the run (exit 1)", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    const s = await seedNewsletter(runtime, { members: 2 });
    fake.addEvents(spread(2, "opened", s.emails[0]!.id, s.members, minutesAgo(20), minutesAgo(10)));
    const wrong = { ...runtime, environ: { MAILGUN_API_KEY: "key-wrong-0123456789" } };
    const report = await runFetch(wrong);
    expect(report.status).toBe("failed");
    expect(exitCodeFor(report)).toBe(1);
    expect(report.error).toBe(
      `Mailgun refused the API key for domain mg.example.com at ${fake.url} (HTTP 401): check MAILGUN_API_KEY`,
    );
    expect(report.error).not.toContain("key-wrong");
  });

  it("a 404 names the domain and where it is set", async () => {
    const { runtime, fake } = await openEaRuntime(h);
    await seedNewsletter(runtime, { members: 2 });
    fake.faults.set({
      statusSequence: [{ status: 404, body: '{"message":"Domain not found: mg.example.com"}' }],
    });
    const report = await runFetch(runtime);
    expect(report.status).toBe("failed");
    expect(report.error).toBe(
      `Mailgun does not know the domain mg.example.com at ${fake.url} (HTTP 404): check pipelines.email-analytics.domain in tidemark.yaml and the region or base_url`,
    );
  });
});
