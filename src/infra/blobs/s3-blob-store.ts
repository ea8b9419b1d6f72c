import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import os from "node:os";
import { Readable } from "node:stream";
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { bodyBytes, isInMemoryBody } from "./blob-body.ts";
import { md5Etag, normalizeEtag } from "./blob-etag.ts";
import {
  compareBlobKeys,
  isValidBlobKey,
  validateBlobKey,
  validateBlobPrefix,
} from "./blob-key.ts";
import {
  type BlobBody,
  type BlobInfo,
  BlobNotFoundError,
  type BlobStore,
  type TextAndDigest,
  textAndDigestOf,
} from "./blob-store.ts";
import { describeS3Store, isS3NotFound, nameS3Failure } from "./s3-errors.ts";
import { discardSpool, spoolBody } from "./s3-spool.ts";

/** How to reach the bucket; mirrors the `blobs.s3` config section. */
export interface S3BlobStoreOptions {
  bucket: string;
  /** Prepended to every key; `tm` and `tm/` both mean the folder `tm/`. Empty: bucket root. */
  prefix?: string;
  region?: string;
  /** For S3-compatible servers (MinIO, R2, s3rver…). */
  endpoint?: string;
  forcePathStyle?: boolean;
  /** Both or neither; when neither, the SDK's default credential chain applies. */
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
  /** Folder for spooling large streamed bodies before upload (default: the OS temp folder). */
  spoolDir?: string;
  /** Streamed bodies up to this many bytes are buffered in memory instead (default 8 MiB). */
  spoolMemoryLimit?: number;
}

const DEFAULT_SPOOL_MEMORY_LIMIT = 8 * 1024 * 1024;

/**
 * Blob store on S3 or an S3-compatible server. Objects live at `<prefix><key>`; ETags are
 * normalised to the quoted form and `savedAt` is truncated to whole seconds, because HEAD's
 * Last-Modified header has only second precision and listings must agree with head().
 */
export class S3BlobStore implements BlobStore {
  readonly driver = "s3" as const;
  readonly bucket: string;
  /** Normalised prefix: empty or ending in `/`. */
  readonly prefix: string;
  private readonly client: S3Client;
  private readonly spoolDir: string;
  private readonly spoolMemoryLimit: number;

  constructor(options: S3BlobStoreOptions) {
    if (!options.bucket) throw new Error("S3BlobStore: bucket is required");
    if (Boolean(options.accessKeyId) !== Boolean(options.secretAccessKey)) {
      throw new Error("S3BlobStore: set both accessKeyId and secretAccessKey, or neither");
    }
    this.bucket = options.bucket;
    this.prefix = normalizePrefix(options.prefix ?? "");
    this.spoolDir = options.spoolDir ?? os.tmpdir();
    this.spoolMemoryLimit = options.spoolMemoryLimit ?? DEFAULT_SPOOL_MEMORY_LIMIT;
    // The SDK warns, on Node < 22, in nine lines on stderr, that its releases after January 2027
    // will need Node 22; the release installed here supports this Node, and the warning would
    // break every command's one-line output. Still overridable from the environment.
    process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= "true";
    this.client = new S3Client({
      region: options.region,
      endpoint: options.endpoint,
      forcePathStyle: options.forcePathStyle,
      credentials:
        options.accessKeyId && options.secretAccessKey
          ? {
              accessKeyId: options.accessKeyId,
              secretAccessKey: options.secretAccessKey,
              sessionToken: options.sessionToken,
            }
          : undefined,
      // We send Content-MD5 ourselves. The SDK's default (WHEN_SUPPORTED) would add CRC32
      // checksums, for streams as `aws-chunked` trailers, which many S3-compatible servers
      // (s3rver, older MinIO/Ceph) do not understand and would store as part of the object.
      requestChecksumCalculation: "WHEN_REQUIRED",
    });
    const where = describeS3Store(this.bucket, this.prefix, options.endpoint);
    // Outermost step, so the SDK's retries are done before an error is named.
    this.client.middlewareStack.add(
      (next) => async (args) => {
        try {
          return await next(args);
        } catch (err) {
          throw nameS3Failure(where, err);
        }
      },
      { step: "initialize", name: "tidemarkNameTheStore" },
    );
  }

  /** The S3 object key for a store key; throws InvalidBlobKeyError if the key is unsafe. */
  objectKey(key: string): string {
    validateBlobKey(key);
    return this.prefix + key;
  }

  /**
   * Streams and async iterables are spooled first (memory up to spoolMemoryLimit, then a temp
   * file) rather than streamed straight into PutObject: a single PUT needs Content-Length up
   * front, we want Content-MD5 so S3 verifies the bytes, and a source that fails midway must not
   * leave a truncated object. @aws-sdk/lib-storage (multipart) is not installed; single PUTs cap
   * objects at 5 GB, which is far above what this store is used for.
   */
  async put(key: string, body: BlobBody, options?: { contentType?: string }): Promise<BlobInfo> {
    const objectKey = this.objectKey(key);
    let size: number;
    let md5: Buffer;
    if (isInMemoryBody(body)) {
      const bytes = bodyBytes(body);
      size = bytes.byteLength;
      md5 = createHash("md5").update(bytes).digest();
      await this.putObject(objectKey, bytes, size, md5, options?.contentType);
    } else {
      const spool = await spoolBody(body, this.spoolDir, this.spoolMemoryLimit);
      try {
        size = spool.size;
        md5 = spool.md5;
        // A buffer body lets the SDK retry on its own; a file stream can only be sent once.
        const payload = spool.kind === "memory" ? spool.bytes : createReadStream(spool.path);
        await this.putObject(objectKey, payload, size, md5, options?.contentType);
      } finally {
        await discardSpool(spool);
      }
    }
    const etag = md5Etag(md5);
    // PutObject does not return Last-Modified; HEAD does, so put() and head() agree on savedAt.
    const info = await this.head(key);
    if (info && info.etag === etag) return info;
    // Deleted or overwritten by someone else in between: report what we wrote.
    return { key, etag, savedAt: truncateToSeconds(new Date()), size };
  }

  async get(key: string): Promise<Buffer> {
    const body = await this.getBody(key);
    const bytes = await body.transformToByteArray();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async getTextAndDigest(key: string): Promise<TextAndDigest> {
    return textAndDigestOf(await this.get(key));
  }

  async getStream(key: string): Promise<Readable> {
    const body = await this.getBody(key);
    // In Node the SDK returns the HTTP response (an IncomingMessage), which is a Readable.
    if (body instanceof Readable) return body;
    throw new Error("S3BlobStore: expected a Node.js Readable body from GetObject");
  }

  async head(key: string): Promise<BlobInfo | undefined> {
    const objectKey = this.objectKey(key);
    try {
      const out = await this.client.send(
        new HeadObjectCommand({ Bucket: this.bucket, Key: objectKey }),
      );
      return {
        key,
        etag: requireEtag(out.ETag, objectKey),
        savedAt: truncateToSeconds(out.LastModified ?? new Date(0)),
        size: out.ContentLength ?? 0,
      };
    } catch (err) {
      if (isS3NotFound(err)) return undefined;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    return (await this.head(key)) !== undefined;
  }

  list(prefix = ""): AsyncIterable<BlobInfo> {
    // Validate now, not on first iteration, so a bad prefix fails where list() is called.
    validateBlobPrefix(prefix);
    return this.listValid(prefix);
  }

  async delete(key: string): Promise<void> {
    const objectKey = this.objectKey(key);
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: objectKey }));
    } catch (err) {
      // S3 answers 204 for absent keys; some compatible servers say NoSuchKey instead.
      if (!isS3NotFound(err)) throw err;
    }
  }

  /** Closes the SDK's pooled connections; the store must not be used afterwards. */
  destroy(): void {
    this.client.destroy();
  }

  private async putObject(
    objectKey: string,
    body: Uint8Array | Readable,
    size: number,
    md5: Buffer,
    contentType: string | undefined,
  ): Promise<void> {
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: objectKey,
        Body: body,
        ContentLength: size,
        ContentMD5: md5.toString("base64"),
        ContentType: contentType ?? "application/octet-stream",
      }),
    );
  }

  private async getBody(key: string) {
    const objectKey = this.objectKey(key);
    try {
      const out = await this.client.send(
        new GetObjectCommand({ Bucket: this.bucket, Key: objectKey }),
      );
      if (!out.Body) throw new Error(`S3BlobStore: GetObject returned no body for ${objectKey}`);
      return out.Body;
    } catch (err) {
      if (isS3NotFound(err)) throw new BlobNotFoundError(key);
      throw err;
    }
  }

  private async *listValid(prefix: string): AsyncGenerator<BlobInfo> {
    let continuationToken: string | undefined;
    let lastKey: string | undefined;
    do {
      const page = await this.client.send(
        new ListObjectsV2Command({
          Bucket: this.bucket,
          Prefix: this.prefix + prefix,
          ContinuationToken: continuationToken,
        }),
      );
      const infos: BlobInfo[] = [];
      for (const item of page.Contents ?? []) {
        if (item.Key === undefined || !item.Key.startsWith(this.prefix)) continue;
        const key = item.Key.slice(this.prefix.length);
        // Objects written by other tools (e.g. console "folder/" markers) may not be valid keys;
        // listing them would hand out keys that every other method refuses.
        if (!isValidBlobKey(key)) continue;
        infos.push({
          key,
          etag: requireEtag(item.ETag, item.Key),
          savedAt: truncateToSeconds(item.LastModified ?? new Date(0)),
          size: item.Size ?? 0,
        });
      }
      // S3 returns each page in UTF-8 byte order already, so this sort is a no-op there; it makes
      // servers that answer in directory order (s3rver) conform when everything fits one page.
      infos.sort((a, b) => compareBlobKeys(a.key, b.key));
      for (const info of infos) {
        if (lastKey !== undefined && compareBlobKeys(info.key, lastKey) <= 0) {
          // Cannot be fixed without buffering the whole listing; refuse rather than mis-order.
          throw new Error(`S3BlobStore: server listed ${info.key} after ${lastKey}`);
        }
        lastKey = info.key;
        yield info;
      }
      continuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (continuationToken);
  }
}

/** `tm` → `tm/`, `/tm/` → `tm/`, `` → ``: the prefix always names a folder (or the bucket root). */
function normalizePrefix(prefix: string): string {
  const trimmed = prefix.replace(/^\/+/, "").replace(/\/+$/, "");
  if (trimmed === "") return "";
  validateBlobKey(trimmed);
  return `${trimmed}/`;
}

function requireEtag(raw: string | undefined, objectKey: string): string {
  if (raw === undefined) throw new Error(`S3BlobStore: no ETag for ${objectKey}`);
  return normalizeEtag(raw);
}

function truncateToSeconds(date: Date): string {
  return new Date(Math.floor(date.getTime() / 1000) * 1000).toISOString();
}
