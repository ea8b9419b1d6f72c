/** Minimal types for s3rver 3.x (a fake S3 server used in tests); it ships none. */
declare module "s3rver" {
  import type { AddressInfo } from "node:net";

  interface S3rverBucketConfig {
    name: string;
    /** CORS or website configuration XML documents. */
    configs?: Array<string | Buffer>;
  }

  interface S3rverOptions {
    /** Interface to bind (default `localhost`). */
    address?: string;
    /** Port to listen on; 0 picks a free one (default 4568). */
    port?: number;
    silent?: boolean;
    /** Folder where buckets and objects are stored. */
    directory?: string;
    resetOnClose?: boolean;
    allowMismatchedSignatures?: boolean;
    vhostBuckets?: boolean;
    serviceEndpoint?: string;
    configureBuckets?: S3rverBucketConfig[];
    key?: string | Buffer;
    cert?: string | Buffer;
  }

  class S3rver {
    constructor(options?: S3rverOptions);
    /** Creates the configured buckets and starts listening; resolves to the bound address. */
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    /** Deletes every bucket and object (synchronously). */
    reset(): void;
    /** Creates the buckets listed in options.configureBuckets. */
    configureBuckets(): Promise<void>;
  }

  export = S3rver;
}
