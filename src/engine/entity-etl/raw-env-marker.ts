import type { BlobStore } from "../../infra/blobs/blob-store.ts";
import { ConfigError } from "../../infra/errors.ts";

/** The object that records which env (`dev`, `prod`) owns a blob location's `raw/` tree. */
export const RAW_ENV_MARKER_KEY = "raw/_env.json";

/** This run's env differs from the env that owns the raw location: nothing is written. */
export class RawEnvMismatchError extends ConfigError {
  constructor(
    readonly where: string,
    readonly owner: string,
    readonly env: string,
  ) {
    super(
      `raw store ${where} belongs to env "${owner}" (${RAW_ENV_MARKER_KEY}), this run's env is "${env}": give each env its own blob location (blobs.root, or blobs.s3.bucket / blobs.s3.prefix)`,
    );
  }
}

/** Where a blob store keeps its objects, for error messages (no credentials). */
export function describeBlobLocation(blobs: BlobStore): string {
  const b = blobs as BlobStore & { root?: unknown; bucket?: unknown; prefix?: unknown };
  if (typeof b.root === "string") return b.root;
  if (typeof b.bucket === "string") {
    return `s3://${b.bucket}/${typeof b.prefix === "string" ? b.prefix : ""}`;
  }
  return `(${blobs.driver} blob store)`;
}

/** The env recorded in the marker, or undefined when there is none yet. */
async function readOwner(blobs: BlobStore): Promise<string | undefined> {
  if (!(await blobs.exists(RAW_ENV_MARKER_KEY))) return undefined;
  const text = (await blobs.get(RAW_ENV_MARKER_KEY)).toString("utf8");
  let env: unknown;
  try {
    env = (JSON.parse(text) as { env?: unknown }).env;
  } catch {
    env = undefined;
  }
  if (typeof env !== "string" || env === "") {
    throw new ConfigError(
      `raw store ${describeBlobLocation(blobs)}: ${RAW_ENV_MARKER_KEY} does not name an env; fix or remove it`,
    );
  }
  return env;
}

/**
 * Checks that `env` may write under `raw/` of this store. With `claim`, a location nobody owns
 * yet is claimed by writing the marker (and read back, so of two first writers the loser
 * notices); without, an unowned location passes and nothing is written (dry runs).
 */
export async function checkRawEnv(blobs: BlobStore, env: string, claim: boolean): Promise<void> {
  let owner = await readOwner(blobs);
  if (owner === undefined && claim) {
    await blobs.put(RAW_ENV_MARKER_KEY, `${JSON.stringify({ env })}\n`, {
      contentType: "application/json",
    });
    owner = await readOwner(blobs);
  }
  if (owner !== undefined && owner !== env) {
    throw new RawEnvMismatchError(describeBlobLocation(blobs), owner, env);
  }
}
