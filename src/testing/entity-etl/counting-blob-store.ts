import type { BlobBody, BlobInfo, BlobStore } from "../../infra/blobs/blob-store.ts";

/** A blob store that counts puts of raw documents and can fail chosen puts (a fault knob). */
export class CountingBlobStore implements BlobStore {
  readonly driver: "fs" | "s3";
  /** Keys of raw documents put, in order (the env marker is not counted). */
  readonly rawPuts: string[] = [];
  /** Puts of keys for which this returns true throw. */
  failPutWhen: (key: string) => boolean = () => false;

  constructor(readonly inner: BlobStore) {
    this.driver = inner.driver;
  }

  // Where the inner store keeps its objects, so error messages can name the location.
  get root(): unknown {
    return (this.inner as { root?: unknown }).root;
  }
  get bucket(): unknown {
    return (this.inner as { bucket?: unknown }).bucket;
  }
  get prefix(): unknown {
    return (this.inner as { prefix?: unknown }).prefix;
  }

  async put(key: string, body: BlobBody, options?: { contentType?: string }): Promise<BlobInfo> {
    if (this.failPutWhen(key)) throw new Error(`injected put failure for ${key}`);
    const info = await this.inner.put(key, body, options);
    if (key.startsWith("raw/source=")) this.rawPuts.push(key);
    return info;
  }
  get(key: string) {
    return this.inner.get(key);
  }
  getTextAndDigest(key: string) {
    return this.inner.getTextAndDigest(key);
  }
  getStream(key: string) {
    return this.inner.getStream(key);
  }
  head(key: string) {
    return this.inner.head(key);
  }
  exists(key: string) {
    return this.inner.exists(key);
  }
  list(prefix?: string) {
    return this.inner.list(prefix);
  }
  delete(key: string) {
    return this.inner.delete(key);
  }

  /** Every key in the store, in key order. */
  async keys(prefix = ""): Promise<string[]> {
    const out: string[] = [];
    for await (const info of this.inner.list(prefix)) out.push(info.key);
    return out;
  }
}
