import { availableParallelism, tmpdir } from "node:os";
import path from "node:path";
import { ConfigError, defineSettings, type SettingsBase } from "tidemark";
import { z } from "zod";

/** Default root, relative to the data dir (fs) or as a key prefix in the blob store (s3). */
export const DEFAULT_ROOT = "etl_data/raw_v1";
/** Default supplier config folder, relative to the data dir. */
export const DEFAULT_CONFIG_DIR = "etl_ops/config";

const keyPrefix = z
  .string()
  .min(1)
  .refine((v) => !v.startsWith("/") && !v.split("/").some((s) => s === ".." || s === "."), {
    message: "must be a relative key prefix without '.' or '..' segments",
  });

const settingsSchema = z
  .object({
    /** `fs`: a folder tree, state published by symlink swap; `s3`: the configured blob store. */
    storage: z.enum(["fs", "s3"]).default("fs"),
    /** fs: folder (relative paths are under the data dir); s3: key prefix in the blob store. */
    root: z.string().min(1).optional(),
    /** Folder of <supplier>.yaml files (relative paths are under the data dir). */
    config_dir: z.string().min(1).optional(),
    /** Local scratch folder for s3 runs (default: the OS temp folder). */
    work_dir: z.string().min(1).optional(),
    /** fsync state files before publishing them (survives power loss; default true). */
    fsync: z.boolean().default(true),
    /** Worker threads parsing large CSV files (default: CPU count, at most 4; 0 = none). */
    workers: z.number().int().min(0).max(32).optional(),
    /**
     * Large CSV files' facts written with direct I/O (Linux O_DIRECT) when they are synced to
     * disk anyway (fs storage, fsync on); false: through the page cache (default true).
     */
    direct_io: z.boolean().default(true),
  })
  .strict();

/** The resolved `pipelines.snapshots` settings of tidemark.yaml. */
export interface SnapshotSettings {
  storage: "fs" | "s3";
  /** Absolute folder (fs) or key prefix without trailing slash (s3). */
  root: string;
  configDir: string;
  workDir: string;
  fsync: boolean;
  workers: number;
  /** Facts of large CSV files written with direct I/O when synced anyway. */
  directIo: boolean;
}

/** Parsed `pipelines.snapshots` → absolute folders, the key prefix and the worker count. */
function resolve(s: z.output<typeof settingsSchema>, base: SettingsBase): SnapshotSettings {
  const underData = (p: string) => path.resolve(base.dataDir, p);
  let root: string;
  if (s.storage === "s3") {
    const check = keyPrefix.safeParse(s.root ?? DEFAULT_ROOT);
    if (!check.success) {
      const where = base.file ?? "configuration";
      throw new ConfigError(
        `${where}: pipelines.snapshots.root: ${check.error.issues[0]?.message}`,
      );
    }
    root = check.data.replace(/\/+$/, "");
  } else {
    root = underData(s.root ?? DEFAULT_ROOT);
  }
  return {
    storage: s.storage,
    root,
    configDir: underData(s.config_dir ?? DEFAULT_CONFIG_DIR),
    workDir: s.work_dir ? underData(s.work_dir) : path.join(tmpdir(), "tidemark-snapshots"),
    fsync: s.fsync,
    workers: s.workers ?? Math.min(4, availableParallelism()),
    directIo: s.direct_io,
  };
}

/** `pipelines.snapshots` in tidemark.yaml, validated when the configuration loads. */
export const snapshotsSettings = defineSettings({ schema: settingsSchema, resolve });
