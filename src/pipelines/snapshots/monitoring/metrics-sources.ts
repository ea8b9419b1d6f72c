import { type Config, ConfigError, type MetricsServices } from "tidemark";
import { type SnapshotSettings, snapshotsSettings } from "../settings.ts";
import type { StatusSources } from "./status.ts";

/** What the metrics hook may be handed beyond MetricsServices (the process passes more). */
interface GivenToMetrics extends MetricsServices {
  readonly settings?: SnapshotSettings;
  readonly config?: Config;
}

/**
 * The snapshots settings for the metrics hook. MetricsServices names no settings, yet the
 * figures read the supplier configs and the tree they point at: the settings are taken from
 * what the process hands the hook (a pipeline's services, or its resolved configuration),
 * validated with the pipeline's own spec when the configuration was loaded without it.
 */
function metricsSettings(services: GivenToMetrics): SnapshotSettings {
  if (services.settings) return services.settings;
  const config = services.config;
  if (!config) throw new ConfigError("snapshots metrics: no pipelines.snapshots settings given");
  const loaded = config.settings.snapshots as SnapshotSettings | undefined;
  if (loaded) return loaded;
  const parsed = snapshotsSettings.schema.safeParse(config.pipelines.snapshots ?? {});
  if (!parsed.success) {
    throw new ConfigError(`pipelines.snapshots: ${parsed.error.issues[0]?.message}`);
  }
  const base = { file: config.file, dataDir: config.dataDir };
  return snapshotsSettings.resolve?.(parsed.data, base) as SnapshotSettings;
}

/** The sources of `snapshotsStatus` on a scrape: the process's stores and the settings. */
export function metricsStatusSources(services: MetricsServices): StatusSources {
  const given: GivenToMetrics = services;
  return {
    settings: metricsSettings(given),
    db: given.db,
    blobs: given.blobs,
    clock: given.clock,
  };
}
