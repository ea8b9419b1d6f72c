import { mkdtemp, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import { S3BlobStore } from "../../infra/blobs/s3-blob-store.ts";

const BUCKET = "tidemark-etl-test";

/** An in-process s3rver with one bucket; `store(prefix)` opens a blob store on a folder of it. */
export async function startS3rver(): Promise<{
  store(prefix: string): S3BlobStore;
  close(): Promise<void>;
}> {
  const directory = await mkdtemp(path.join(os.tmpdir(), "tm-etl-s3rver-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: BUCKET }],
  });
  const { port } = await server.run();
  const stores: S3BlobStore[] = [];
  return {
    store(prefix) {
      const store = new S3BlobStore({
        bucket: BUCKET,
        prefix,
        region: "us-east-1",
        endpoint: `http://127.0.0.1:${port}`,
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
