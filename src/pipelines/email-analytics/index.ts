/**
 * The email-analytics pipeline: Ghost's email-analytics-fetch-latest batch. Mailgun events are
 * read by watermark into Ghost's email_recipients, then email and member statistics are
 * aggregated. This module is the definition only (cheap to import): jobs, commands, metrics, the
 * fake and the demo load their implementation on first use.
 */
import { defineJobType, definePipeline, lazyMigrations } from "tidemark";
import { emailAnalyticsCommandGroups, emailAnalyticsCommands } from "./commands.ts";
import {
  emailAnalyticsFetchExample,
  emailAnalyticsFetchParams,
  FETCH_LEASE_KEY,
} from "./params.ts";
import { emailAnalyticsRoutes } from "./routes.ts";
import { emailAnalyticsSettings } from "./settings.ts";

/** `email-analytics.fetch`: one fetch of Mailgun events (opened, others, missing, scheduled). */
export const emailAnalyticsFetchJobType = defineJobType({
  name: "email-analytics.fetch",
  description:
    "Mailgun events → email_recipients, email and member stats (Ghost's fetch cycle; schedule '*/5 * * * *' with jitter 299)",
  params: emailAnalyticsFetchParams,
  example: emailAnalyticsFetchExample,
  settings: emailAnalyticsSettings,
  leaseKey: () => FETCH_LEASE_KEY,
  summaryLines: (summary) => {
    const s = summary as {
      events?: number;
      cycles?: number;
      events_per_second?: number;
      counts?: Record<string, number>;
    };
    const counts = Object.entries(s.counts ?? {})
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${k} ${n}`)
      .join(", ");
    return [
      `events: ${s.events ?? 0} in ${s.cycles ?? 0} cycle(s), ${s.events_per_second ?? 0}/s`,
      ...(counts ? [`by type: ${counts}`] : []),
    ];
  },
  async run(ctx, params) {
    const { runFetchJob } = await import("./jobs/fetch-job.ts");
    return runFetchJob(ctx, params);
  },
});

/** The email-analytics pipeline. */
export const emailAnalyticsPipeline = definePipeline({
  name: "email-analytics",
  description: "Mailgun events by watermark into Ghost's recipients, email and member stats",
  jobTypes: [emailAnalyticsFetchJobType],
  settings: emailAnalyticsSettings,
  migrations: lazyMigrations({
    "0001-email-analytics": () => import("./migrations/0001-email-analytics.ts"),
    "0002-pending-stats": () => import("./migrations/0002-pending-stats.ts"),
  }),
  commandGroups: emailAnalyticsCommandGroups,
  commands: emailAnalyticsCommands,
  routes: emailAnalyticsRoutes,
  panel: {
    title: "Email analytics",
    load: async () => (await import("./panel/email-analytics-panel.ts")).emailAnalyticsPanel,
  },
  async metrics(register, services) {
    const { registerEmailAnalyticsMetrics } = await import("./monitoring/metrics.ts");
    await registerEmailAnalyticsMetrics(register, services);
  },
  fake: {
    description: "a fake Mailgun Events API serving a generated newsletter campaign",
    async start(options) {
      const { startEmailAnalyticsFake } = await import("./fake/start-fake.ts");
      const running = await startEmailAnalyticsFake(options);
      // The key and domain keep Mailgun's own variable names (MAILGUN_API_KEY, MAILGUN_DOMAIN):
      // they are shown as lines to export, the TIDEMARK_* URL as the fake's variable.
      const own = Object.entries(running.env).filter(([name]) => !name.startsWith("TIDEMARK_"));
      return {
        ...running,
        env: Object.fromEntries(
          Object.entries(running.env).filter(([name]) => name.startsWith("TIDEMARK_")),
        ),
        hints: [...own.map(([name, value]) => `export ${name}=${value}`), ...running.hints],
      };
    },
  },
  async demo(ctx) {
    const { runEmailAnalyticsDemo } = await import("./demo.ts");
    await runEmailAnalyticsDemo(ctx);
  },
});
