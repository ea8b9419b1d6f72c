import { randomBytes } from "node:crypto";
import { createReadStream, type Dirent } from "node:fs";
import {
  chmod,
  lstat,
  lutimes,
  mkdir,
  open,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
  unlink,
} from "node:fs/promises";
import path from "node:path";
import type { Readable } from "node:stream";
import { fsyncDir, isStrictlyInside, mkdirDurable } from "tidemark/kit";
import { currentLink, runDir, STATE_FILES, stateDir } from "../../intake/layout/tree.ts";
import { readAheadChunks } from "./read-ahead-chunks.ts";
import {
  type SnapshotStorage,
  type StatePointer,
  type StatePublication,
  type StorageEntry,
  StorageNotFoundError,
  type WorkDirEntry,
} from "./snapshot-storage.ts";

/** Files of a state folder synced at once when it is sealed. */
const SEAL_CONCURRENCY = 8;

const isAbsent = (err: unknown) =>
  ["ENOENT", "ENOTDIR"].includes((err as NodeJS.ErrnoException).code ?? "");

/**
 * The tree as folders on a POSIX file system. Writes are temp-file + rename; a state folder is
 * built next to its run, made read-only and renamed into state_store; current is a relative
 * symlink replaced atomically by rename(2).
 */
export class FsSnapshotStorage implements SnapshotStorage {
  readonly kind = "fs" as const;
  readonly location: string;

  constructor(
    readonly root: string,
    private readonly durable = true,
  ) {
    this.root = path.resolve(root);
    this.location = this.root;
  }

  /** Absolute path of a key; refuses anything that would leave the root. */
  pathOf(key: string): string {
    const file = path.resolve(this.root, ...key.split("/"));
    if (file !== this.root && !isStrictlyInside(file, this.root)) {
      throw new Error(`key ${JSON.stringify(key)} resolves outside the snapshots root`);
    }
    return file;
  }

  localFile(key: string): string {
    return this.pathOf(key);
  }

  async listFiles(dir: string): Promise<StorageEntry[]> {
    const out: StorageEntry[] = [];
    for (const d of await this.#readdir(dir)) {
      if (!d.isFile()) continue;
      const entry = await this.stat(`${dir}/${d.name}`);
      if (entry) out.push(entry);
    }
    return out;
  }

  async listDirs(dir: string): Promise<string[]> {
    return (await this.#readdir(dir)).filter((d) => d.isDirectory()).map((d) => d.name);
  }

  async *walkFiles(dir: string): AsyncIterable<StorageEntry> {
    for (const d of await this.#readdir(dir)) {
      const key = `${dir}/${d.name}`;
      if (d.isDirectory()) yield* this.walkFiles(key);
      else if (d.isFile()) {
        const entry = await this.stat(key);
        if (entry) yield entry;
      }
    }
  }

  async stat(key: string): Promise<StorageEntry | undefined> {
    try {
      const s = await stat(this.pathOf(key));
      if (!s.isFile()) return undefined;
      return { key, name: path.posix.basename(key), size: s.size, mtimeMs: s.mtimeMs };
    } catch (err) {
      if (isAbsent(err)) return undefined;
      throw err;
    }
  }

  async openRead(key: string): Promise<Readable> {
    const handle = await open(this.pathOf(key), "r").catch((err: unknown) => {
      throw isAbsent(err) ? new StorageNotFoundError(key) : err;
    });
    return createReadStream("", { fd: handle, highWaterMark: 1 << 20, autoClose: true });
  }

  async openChunks(key: string): Promise<{ chunks: AsyncIterable<Uint8Array>; close(): void }> {
    const handle = await open(this.pathOf(key), "r").catch((err: unknown) => {
      throw isAbsent(err) ? new StorageNotFoundError(key) : err;
    });
    return readAheadChunks(handle);
  }

  async readText(key: string): Promise<string | undefined> {
    return (await this.readBytes(key))?.toString("utf8");
  }

  async readBytes(key: string): Promise<Buffer | undefined> {
    try {
      return await readFile(this.pathOf(key));
    } catch (err) {
      if (isAbsent(err)) return undefined;
      throw err;
    }
  }

  async writeText(key: string, text: string): Promise<void> {
    const file = this.pathOf(key);
    await mkdirDurable(path.dirname(file));
    const temp = `${file}.${randomBytes(6).toString("hex")}.tmp`;
    const handle = await open(temp, "w");
    try {
      await handle.writeFile(text, "utf8");
      if (this.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
    if (this.durable) await fsyncDir(path.dirname(file));
  }

  async move(from: string, toDir: string): Promise<string> {
    const name = path.posix.basename(from);
    await mkdirDurable(this.pathOf(toDir));
    let target = `${toDir}/${name}`;
    for (let n = 1; await this.#exists(target); n++) target = `${toDir}/${name}.${n}`;
    try {
      await rename(this.pathOf(from), this.pathOf(target));
    } catch (err) {
      throw isAbsent(err) ? new StorageNotFoundError(from) : err;
    }
    if (this.durable) await fsyncDir(this.pathOf(toDir));
    return target;
  }

  async remove(key: string): Promise<void> {
    await rm(this.pathOf(key), { force: true });
  }

  async removeDir(dir: string): Promise<void> {
    const abs = this.pathOf(dir);
    // State folders are 0555: give write permission back so their entries can be unlinked.
    await this.#makeWritable(abs);
    await rm(abs, { recursive: true, force: true });
  }

  async runWorkDir(runId: string): Promise<string> {
    const dir = this.pathOf(runDir(runId));
    await mkdir(dir, { recursive: true });
    return dir;
  }

  async saveRunFiles(): Promise<void> {}

  get syncsWorkFiles(): boolean {
    return this.durable;
  }

  async flushAhead(file: string): Promise<void> {
    if (!this.durable) return;
    try {
      const h = await open(file, "r");
      await h.datasync().finally(() => h.close());
    } catch {
      // #sealTree syncs again and reports the error
    }
  }

  async discardWorkDir(): Promise<void> {}

  async listWorkDirs(): Promise<WorkDirEntry[]> {
    return [];
  }

  // Not swept here: a killed writeText leaves at most a small `<name>.<hex>.tmp`, and a killed
  // run's folder is runs/<run_id> itself, which retention (runs_days) removes.
  async *walkPartialWrites(): AsyncIterable<StorageEntry> {}

  async removePartialWrite(): Promise<void> {}

  async createState(supplier: string, runId: string, localDir: string): Promise<void> {
    const target = this.pathOf(stateDir(supplier, runId));
    if (
      await lstat(target).then(
        () => true,
        () => false,
      )
    ) {
      throw new Error(`state ${stateDir(supplier, runId)} already exists; states are immutable`);
    }
    await this.#sealTree(localDir);
    await mkdirDurable(path.dirname(target));
    await rename(localDir, target);
    // Only now: renaming a folder to another parent needs write permission on the folder.
    await chmod(target, 0o555);
    if (this.durable) {
      await fsyncDir(path.dirname(localDir));
      await fsyncDir(path.dirname(target));
    }
  }

  async readCurrent(supplier: string): Promise<StatePointer | undefined> {
    const link = this.pathOf(currentLink(supplier));
    let target: string;
    let published: Date;
    try {
      target = await readlink(link);
      published = (await lstat(link)).mtime;
    } catch (err) {
      if (isAbsent(err) || (err as NodeJS.ErrnoException).code === "EINVAL") return undefined;
      throw err;
    }
    const runId = path.basename(target);
    const statePath = stateDir(supplier, runId);
    const text = await this.readText(`${statePath}/${STATE_FILES.publication}`);
    if (text === undefined) {
      throw new Error(
        `state/current/${supplier} points at ${target}, which has no publication.json`,
      );
    }
    const publication = JSON.parse(text) as StatePublication;
    return { ...publication, published_at: published.toISOString(), state_path: statePath };
  }

  async switchCurrent(supplier: string, pointer: StatePointer): Promise<void> {
    const link = this.pathOf(currentLink(supplier));
    const dir = path.dirname(link);
    await mkdirDurable(dir);
    const temp = path.join(dir, `.${supplier}.${randomBytes(6).toString("hex")}.tmp`);
    // Relative, so the tree can be moved or mounted elsewhere and still resolve.
    await symlink(path.relative(dir, this.pathOf(pointer.state_path)), temp);
    const when = new Date(pointer.published_at);
    // The link's own mtime records when current switched (its age and the retention of replaced states).
    await lutimes(temp, when, when).catch(() => {});
    try {
      await rename(temp, link);
    } catch (err) {
      await unlink(temp).catch(() => {});
      throw err;
    }
    if (this.durable) await fsyncDir(dir);
  }

  async listCurrent(): Promise<string[]> {
    return (await this.#readdir("state/current"))
      .filter((d) => d.isSymbolicLink() && !d.name.startsWith("."))
      .map((d) => d.name);
  }

  async #readdir(dir: string): Promise<Dirent[]> {
    try {
      return await readdir(this.pathOf(dir), { withFileTypes: true });
    } catch (err) {
      if (isAbsent(err)) return [];
      throw err;
    }
  }

  async #exists(key: string): Promise<boolean> {
    return lstat(this.pathOf(key)).then(
      () => true,
      () => false,
    );
  }

  /** chmod a-w on every file and sub-folder below dir (fsync first when durable). */
  async #sealTree(dir: string, top = true): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const d of entries)
      if (d.isDirectory()) await this.#sealTree(path.join(dir, d.name), false);
    // A folder's files are synced SEAL_CONCURRENCY at a time: one after another, the key
    // index's buckets cost a disk round trip each (~2.5 ms apiece here).
    const files = entries.filter((d) => !d.isDirectory()).map((d) => path.join(dir, d.name));
    for (let i = 0; i < files.length; i += SEAL_CONCURRENCY) {
      await Promise.all(files.slice(i, i + SEAL_CONCURRENCY).map((f) => this.#sealFile(f)));
    }
    if (this.durable) await fsyncDir(dir);
    if (!top) await chmod(dir, 0o555);
  }

  async #sealFile(file: string): Promise<void> {
    if (this.durable) {
      const h = await open(file, "r");
      await h.sync().finally(() => h.close());
    }
    await chmod(file, 0o444);
  }

  async #makeWritable(dir: string): Promise<void> {
    let entries: Dirent[];
    try {
      await chmod(dir, 0o755);
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if (isAbsent(err)) return;
      throw err;
    }
    for (const d of entries) if (d.isDirectory()) await this.#makeWritable(path.join(dir, d.name));
  }
}
