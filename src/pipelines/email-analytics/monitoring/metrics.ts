/**
 * Prometheus figures of the pipeline (on the `/metrics` of serve and worker), read from the
 * `jobs` rows on each scrape: watermark age per phase, the last fetch's events, time,
 * throughput and per-type counts, the lag warning, whether a fetch is running.
 */
import type { Registry as PromRegistry } from "prom-client";
import type { Config, MetricsServices } from "tidemark";
import { type EmailAnalyticsSettings, emailAnalyticsSettingsSchema } from "../settings.ts";
import { type EmailAnalyticsStatus, emailAnalyticsStatus } from "./status.ts";

/** One gauge: its name, help, labels and how to read its samples from a status. */
interface GaugeSpec {
  name: string;
  help: string;
  labels: string[];
  samples(s: EmailAnalyticsStatus): Array<{ labels: Record<string, string>; value: number }>;
}

const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);

/** The gauges, as data (tests read them without a registry). */
export const EMAIL_ANALYTICS_GAUGES: readonly GaugeSpec[] = [
  {
    name: "tidemark_email_analytics_watermark_age_seconds",
    help: "Seconds between now and where the phase's next fetch starts (finished_at || started_at)",
    labels: ["job"],
    samples: (s) =>
      s.jobs.flatMap((j) =>
        j.lag_seconds === null ? [] : [{ labels: { job: j.name }, value: j.lag_seconds }],
      ),
  },
  {
    name: "tidemark_email_analytics_last_fetch_events",
    help: "Events the phase's last fetch applied",
    labels: ["job"],
    samples: (s) =>
      s.jobs.flatMap((j) => {
        const v = num(j.last_fetch?.events);
        return v === undefined ? [] : [{ labels: { job: j.name }, value: v }];
      }),
  },
  {
    name: "tidemark_email_analytics_last_fetch_duration_seconds",
    help: "Duration of the phase's last fetch",
    labels: ["job"],
    samples: (s) =>
      s.jobs.flatMap((j) => {
        const v = num(j.last_fetch?.duration_ms);
        return v === undefined ? [] : [{ labels: { job: j.name }, value: v / 1000 }];
      }),
  },
  {
    name: "tidemark_email_analytics_last_fetch_events_per_second",
    help: "Throughput of the phase's last fetch",
    labels: ["job"],
    samples: (s) =>
      s.jobs.flatMap((j) => {
        const events = num(j.last_fetch?.events);
        const ms = num(j.last_fetch?.duration_ms);
        if (events === undefined || ms === undefined) return [];
        return [{ labels: { job: j.name }, value: ms > 0 ? (events * 1000) / ms : 0 }];
      }),
  },
  {
    name: "tidemark_email_analytics_last_fetch_events_by_type",
    help: "Events of the phase's last fetch by outcome (delivered, opened, permanentFailed, …)",
    labels: ["job", "type"],
    samples: (s) =>
      s.jobs.flatMap((j) =>
        Object.entries((j.last_fetch?.counts ?? {}) as Record<string, unknown>).flatMap(
          ([type, v]) =>
            typeof v === "number" ? [{ labels: { job: j.name, type }, value: v }] : [],
        ),
      ),
  },
  {
    name: "tidemark_email_analytics_last_fetch_out_of_window",
    help: "Events the phase's last fetch skipped: stamped outside the window it asked for",
    labels: ["job"],
    samples: (s) =>
      s.jobs.flatMap((j) =>
        j.last_fetch ? [{ labels: { job: j.name }, value: j.out_of_window }] : [],
      ),
  },
  {
    name: "tidemark_email_analytics_opened_lag_warning",
    help: "1 when the opened events' watermark is older than opened_lag_warning_minutes",
    labels: [],
    samples: (s) => [{ labels: {}, value: s.opened_lag_warning ? 1 : 0 }],
  },
  {
    name: "tidemark_email_analytics_fetch_running",
    help: "1 while a fetch holds the lease (in any process)",
    labels: [],
    samples: (s) => [{ labels: {}, value: s.running ? 1 : 0 }],
  },
  {
    name: "tidemark_email_analytics_backfill_scheduled",
    help: "1 while a backfill range is scheduled",
    labels: [],
    samples: (s) => [{ labels: {}, value: s.scheduled ? 1 : 0 }],
  },
];

/** What a scrape may be handed besides MetricsServices: the pipeline's settings, the config. */
type ScrapeServices = MetricsServices & {
  readonly settings?: unknown;
  readonly config?: Pick<Config, "settings">;
};

const hasThreshold = (v: unknown): v is Pick<EmailAnalyticsSettings, "openedLagWarningMinutes"> =>
  typeof (v as { openedLagWarningMinutes?: unknown } | undefined)?.openedLagWarningMinutes ===
  "number";

/**
 * The opened-lag warning threshold a scrape compares with. MetricsServices carries no settings,
 * so this reads the validated settings the process was given, when it was handed them (its
 * services' `settings`, or its configuration's `settings`), else the schema's default.
 */
export function scrapeLagThreshold(services: ScrapeServices): number {
  const given = [services.settings, services.config?.settings?.["email-analytics"]];
  const found = given.find(hasThreshold);
  return found
    ? found.openedLagWarningMinutes
    : emailAnalyticsSettingsSchema.shape.opened_lag_warning_minutes.parse(undefined);
}

/** Registers the gauges on `register`; one status read serves every gauge of a scrape. */
export async function registerEmailAnalyticsMetrics(
  register: PromRegistry,
  services: MetricsServices,
): Promise<void> {
  const status = {
    db: services.db,
    clock: services.clock,
    leases: services.leases,
    settings: { openedLagWarningMinutes: scrapeLagThreshold(services) },
  };
  const { Gauge } = await import("prom-client");
  let cached: { at: number; data: Promise<EmailAnalyticsStatus> } | undefined;
  const current = () => {
    const now = Date.now();
    if (!cached || now - cached.at > 1000) cached = { at: now, data: emailAnalyticsStatus(status) };
    return cached.data;
  };
  for (const spec of EMAIL_ANALYTICS_GAUGES) {
    new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: spec.labels,
      registers: [register],
      async collect() {
        this.reset();
        for (const sample of spec.samples(await current())) this.set(sample.labels, sample.value);
      },
    });
  }
}
