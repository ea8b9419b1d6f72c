/** Blob store classes for tests that build a store by hand (e.g. on an in-process s3rver). */
export { FsBlobStore } from "../infra/blobs/fs-blob-store.ts";
export { S3BlobStore } from "../infra/blobs/s3-blob-store.ts";
