import type { BlobTarget } from "../config/load-config.ts";
import type { BlobStore } from "./blob-store.ts";

/** Opens the configured blob store; the S3 SDK is loaded only when S3 is configured. */
export async function openBlobStore(target: BlobTarget): Promise<BlobStore> {
  if (target.driver === "fs") {
    const { FsBlobStore } = await import("./fs-blob-store.ts");
    return new FsBlobStore(target.root);
  }
  const { S3BlobStore } = await import("./s3-blob-store.ts");
  const s3 = target.s3;
  return new S3BlobStore({
    bucket: s3.bucket,
    prefix: s3.prefix,
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: s3.force_path_style,
    accessKeyId: s3.access_key_id,
    secretAccessKey: s3.secret_access_key,
  });
}
