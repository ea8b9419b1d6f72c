import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import { S3BlobStore } from "../infra/blobs/s3-blob-store.ts";

/** A running in-process s3rver (tests): its bucket and endpoint, and blob stores on it. */
export interface RunningS3rver {
  readonly bucket: string;
  readonly endpoint: string;
  /** A blob store on a folder (`prefix`) of the bucket, destroyed by close(). */
  store(prefix: string): S3BlobStore;
  close(): Promise<void>;
}

/** Starts an s3rver on a free port with one bucket, its files in a temp folder close() removes. */
export async function startS3rver(bucket = "tidemark-test"): Promise<RunningS3rver> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "tm-s3rver-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket }],
  });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const stores: S3BlobStore[] = [];
  return {
    bucket,
    endpoint,
    store(prefix) {
      const store = new S3BlobStore({
        bucket,
        prefix,
        region: "us-east-1",
        endpoint,
        forcePathStyle: true,
        accessKeyId: "S3RVER",
        secretAccessKey: "S3RVER",
      });
      stores.push(store);
      return store;
    },
    async close() {
      for (const s of stores) s.destroy();
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
