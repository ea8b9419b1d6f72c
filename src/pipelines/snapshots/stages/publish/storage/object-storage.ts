import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, mkdir, readdir, rm } from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { BlobNotFoundError, type BlobStore, isBlobTempName } from "tidemark/kit";
import { crashMidStream, crashPoint } from "../../ingest/crash-hook.ts";
import { currentPointer, STATE_FILES, stateDir } from "../../intake/layout/tree.ts";
import { localRootOf, walkBlobTempFiles } from "./blob-temp-files.ts";
import { localTreeBytes, pruneEmptyParents, readLocalDir } from "./local-tree.ts";
import {
  type SnapshotStorage,
  type StatePointer,
  type StorageEntry,
  StorageNotFoundError,
  type WorkDirEntry,
} from "./snapshot-storage.ts";

/**
 * The tree as objects under a key prefix of the configured blob store (normally S3). A run works in
 * a local scratch folder and uploads its artifacts; a state is uploaded once (refused if any
 * object exists under it) and published by one PUT of state/current/<supplier>.json, which S3
 * applies atomically: readers see the old pointer or the new one, never a mix. A move is a copy
 * and a delete, so it is made safe to redo after a kill (see move).
 */
export class ObjectSnapshotStorage implements SnapshotStorage {
  readonly kind = "s3" as const;
  readonly location: string;
  /** The folder behind an fs blob store, where killed puts leave temp files (S3: none). */
  readonly #localRoot: string | undefined;

  constructor(
    private readonly blobs: BlobStore,
    /** Key prefix without trailing slash, e.g. `etl_data/raw_v1`. */
    private readonly prefix: string,
    /** Local scratch folder for run work dirs. */
    private readonly scratch: string,
  ) {
    this.location = `${blobs.driver}:${prefix}/`;
    this.#localRoot = localRootOf(blobs);
  }

  #k(key: string): string {
    return `${this.prefix}/${key}`;
  }

  async *#list(dir: string): AsyncIterable<StorageEntry> {
    const base = `${this.prefix}/${dir}/`;
    for await (const info of this.blobs.list(base)) {
      const key = info.key.slice(this.prefix.length + 1);
      yield {
        key,
        name: path.posix.basename(key),
        size: info.size,
        mtimeMs: Date.parse(info.savedAt),
      };
    }
  }

  async listFiles(dir: string): Promise<StorageEntry[]> {
    const out: StorageEntry[] = [];
    for await (const e of this.#list(dir))
      if (!e.key.slice(dir.length + 1).includes("/")) out.push(e);
    return out;
  }

  async listDirs(dir: string): Promise<string[]> {
    const names = new Set<string>();
    for await (const e of this.#list(dir)) {
      const rest = e.key.slice(dir.length + 1);
      const slash = rest.indexOf("/");
      if (slash > 0) names.add(rest.slice(0, slash));
    }
    return [...names];
  }

  walkFiles(dir: string): AsyncIterable<StorageEntry> {
    return this.#list(dir);
  }

  async stat(key: string): Promise<StorageEntry | undefined> {
    const info = await this.blobs.head(this.#k(key));
    if (!info) return undefined;
    return {
      key,
      name: path.posix.basename(key),
      size: info.size,
      mtimeMs: Date.parse(info.savedAt),
    };
  }

  async openRead(key: string): Promise<Readable> {
    try {
      return await this.blobs.getStream(this.#k(key));
    } catch (err) {
      throw err instanceof BlobNotFoundError ? new StorageNotFoundError(key) : err;
    }
  }

  async readText(key: string): Promise<string | undefined> {
    return (await this.readBytes(key))?.toString("utf8");
  }

  async readBytes(key: string): Promise<Buffer | undefined> {
    try {
      return await this.blobs.get(this.#k(key));
    } catch (err) {
      if (err instanceof BlobNotFoundError) return undefined;
      throw err;
    }
  }

  async writeText(key: string, text: string): Promise<void> {
    await this.blobs.put(this.#k(key), text, { contentType: "application/json" });
  }

  /**
   * Copy, then delete the source. A kill between the two leaves both; the redone move finds its
   * earlier copy (same name or `.<n>`, same size and SHA-256), deletes the source and returns
   * that copy instead of archiving the file twice.
   */
  async move(from: string, toDir: string): Promise<string> {
    const source = await this.stat(from);
    if (!source) throw new StorageNotFoundError(from);
    const name = path.posix.basename(from);
    let sourceSha: string | undefined;
    let target = `${toDir}/${name}`;
    for (let n = 1; ; n++) {
      const there = await this.stat(target);
      if (!there) break;
      if (there.size === source.size) {
        sourceSha ??= await this.#sha256(from);
        if ((await this.#sha256(target)) === sourceSha) {
          await this.blobs.delete(this.#k(from));
          return target;
        }
      }
      target = `${toDir}/${name}.${n}`;
    }
    const body = await this.openRead(from);
    await this.blobs.put(this.#k(target), crashMidStream("mid-move", body));
    crashPoint("after-move-copy");
    await this.blobs.delete(this.#k(from));
    return target;
  }

  async #sha256(key: string): Promise<string> {
    const hash = createHash("sha256");
    for await (const chunk of await this.openRead(key)) hash.update(chunk as Buffer);
    return hash.digest("hex");
  }

  async remove(key: string): Promise<void> {
    await this.blobs.delete(this.#k(key));
  }

  async removeDir(dir: string): Promise<void> {
    const keys: string[] = [];
    for await (const e of this.#list(dir)) keys.push(e.key);
    for (const key of keys) await this.blobs.delete(this.#k(key));
  }

  async runWorkDir(runId: string): Promise<string> {
    const dir = path.join(this.scratch, runId);
    await mkdir(dir, { recursive: true });
    return dir;
  }

  async saveRunFiles(runId: string, names: readonly string[]): Promise<void> {
    const local = path.join(this.scratch, runId);
    for (const name of names) {
      await this.blobs.put(
        this.#k(`runs/${runId}/${name}`),
        createReadStream(path.join(local, name)),
      );
    }
  }

  async discardWorkDir(runId: string): Promise<void> {
    await rm(path.join(this.scratch, runId), { recursive: true, force: true });
  }

  async listWorkDirs(): Promise<WorkDirEntry[]> {
    const out: WorkDirEntry[] = [];
    for (const d of await readLocalDir(this.scratch)) {
      if (!d.isDirectory()) continue;
      const dir = path.join(this.scratch, d.name);
      const s = await lstat(dir).catch(() => undefined);
      if (s)
        out.push({ name: d.name, path: dir, bytes: await localTreeBytes(dir), mtimeMs: s.mtimeMs });
    }
    return out;
  }

  walkPartialWrites(
    dir: string,
    descend: (key: string) => boolean = () => true,
  ): AsyncIterable<StorageEntry> {
    if (!this.#localRoot) return (async function* () {})();
    const local = path.join(this.#localRoot, ...this.#k(dir).split("/"));
    return walkBlobTempFiles(local, dir, descend);
  }

  async removePartialWrite(key: string): Promise<void> {
    // Only ever a temp file: never an object, whatever key a caller passes.
    if (!this.#localRoot || !isBlobTempName(path.posix.basename(key))) return;
    if (key.split("/").some((seg) => seg === ".." || seg === "")) return;
    const top = path.join(this.#localRoot, ...this.prefix.split("/"));
    const file = path.join(top, ...key.split("/"));
    await rm(file, { force: true });
    // No empty folders left behind, as the blob store's own deletes leave none.
    await pruneEmptyParents(file, top);
  }

  async createState(supplier: string, runId: string, localDir: string): Promise<void> {
    const base = stateDir(supplier, runId);
    for await (const _ of this.#list(base)) {
      throw new Error(`state ${base} already exists; states are immutable`);
    }
    // publication.json last: a state without it is an incomplete upload, never published.
    const files = (await readdir(localDir, { recursive: true, withFileTypes: true }))
      .filter((d) => d.isFile())
      .map((d) =>
        path.relative(localDir, path.join(d.parentPath, d.name)).split(path.sep).join("/"),
      )
      .sort(
        (a, b) => Number(a === STATE_FILES.publication) - Number(b === STATE_FILES.publication),
      );
    for (const rel of files) {
      const body = createReadStream(path.join(localDir, rel));
      await this.blobs.put(
        this.#k(`${base}/${rel}`),
        rel === STATE_FILES.facts ? crashMidStream("mid-upload", body) : body,
      );
    }
  }

  async readCurrent(supplier: string): Promise<StatePointer | undefined> {
    const text = await this.readText(currentPointer(supplier));
    return text === undefined ? undefined : (JSON.parse(text) as StatePointer);
  }

  async switchCurrent(supplier: string, pointer: StatePointer): Promise<void> {
    await this.writeText(currentPointer(supplier), `${JSON.stringify(pointer, null, 2)}\n`);
  }

  async listCurrent(): Promise<string[]> {
    return (await this.listFiles("state/current"))
      .filter((e) => e.name.endsWith(".json"))
      .map((e) => e.name.slice(0, -".json".length));
  }
}
