// The fs store's worker thread, as inline source (a bundled build has no file to point at).
//
// Reads: each file of a batch with readFileSync (a few µs for a file in the page cache), handing
// the bytes back without a copy, or, for a text read, its SHA-256 and UTF-8 text (hashing and
// decoding there keeps a re-apply's main thread free for its database work). Files not in the
// page cache (a re-apply of documents written long ago) wait on the disk, and read one at a time
// they take ~200 µs each: when a batch's reads average more than `slowReadMs`, the next batches
// are read with fs.readFile, 16 at a time on the thread pool, until reads are fast again
// (measured: 9,700 against 5,000 items/s for a cold re-apply).
//
// Stats: statSync, no error object for a missing file (a first load asks for 100,000 of them).
//
// Puts: the same durable write as fs-put.ts (temp file, fsync, rename, fsync of the folder and
// of the parents of folders it created, the temp file removed and empty folders pruned on
// failure), with the thread pool's callbacks run here: the ~11 file system calls of a put cost
// the main thread ~130 µs through promises, which was a quarter of a first load's main thread.
// Folder fsyncs are grouped as in fs-dirs.ts: a call waits for an fsync that started after it.
export const FS_WORKER_SOURCE = `
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const path = require("node:path");
const { hash } = require("node:crypto");
const SLOW_MS = workerData.slowReadMs;
// Reads in flight when reading from the disk: four per thread-pool thread keep it busy; all of a
// batch at once were no faster and held more memory.
const IN_FLIGHT = 16;
const OPEN_TEMP_ATTEMPTS = 5;
let fromDisk = false;
const failure = (err) => ({ code: err.code, message: err.message });

function outcome(b, text, transfer) {
  if (text) return { text: b.toString("utf8"), sha256: hash("sha256", b, "hex") };
  // A small file's bytes may share a pooled ArrayBuffer: move only its own bytes.
  const own = b.byteOffset === 0 && b.byteLength === b.buffer.byteLength;
  const ab = own ? b.buffer : b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
  transfer.push(ab);
  return ab;
}

function readBatch({ id, files, text }) {
  const out = new Array(files.length);
  const transfer = [];
  const started = performance.now();
  const finish = () => {
    fromDisk = (performance.now() - started) / files.length > SLOW_MS;
    parentPort.postMessage({ id, out }, transfer);
  };
  if (!fromDisk) {
    for (let i = 0; i < files.length; i++) {
      try {
        out[i] = outcome(fs.readFileSync(files[i]), text[i], transfer);
      } catch (err) {
        out[i] = failure(err);
      }
    }
    return finish();
  }
  let left = files.length;
  let next = 0;
  const start = () => {
    const i = next++;
    if (i >= files.length) return;
    fs.readFile(files[i], (err, b) => {
      try {
        out[i] = err ? failure(err) : outcome(b, text[i], transfer);
      } catch (e) {
        out[i] = failure(e);
      }
      if (--left === 0) finish();
      else start();
    });
  };
  for (let k = 0; k < IN_FLIGHT; k++) start();
}

function stamp(st) {
  return { dev: st.dev, ino: st.ino, size: st.size, mtimeNs: st.mtimeNs, mtimeMs: st.mtimeMs };
}

function statBatch({ id, files }) {
  const out = files.map((file) => {
    try {
      const st = fs.statSync(file, { bigint: true, throwIfNoEntry: false });
      if (st === undefined) return { code: "ENOENT", message: "no such file: " + file };
      return st.isFile() ? stamp(st) : { code: "EISDIR", message: "not a file: " + file };
    } catch (err) {
      return failure(err);
    }
  });
  parentPort.postMessage({ id, out });
}

// Per folder: the callbacks of the fsync running now are done; those that came since wait for
// the next one.
const dirSyncs = new Map();
function fsyncDir(dir, cb) {
  const waiting = dirSyncs.get(dir);
  if (waiting !== undefined) return void waiting.push(cb);
  dirSyncs.set(dir, []);
  syncOnce(dir, [cb]);
}
function syncOnce(dir, cbs) {
  const done = (err) => {
    for (const cb of cbs) cb(err);
    const next = dirSyncs.get(dir);
    if (next.length === 0) dirSyncs.delete(dir);
    else {
      dirSyncs.set(dir, []);
      syncOnce(dir, next);
    }
  };
  fs.open(dir, "r", (err, fd) => {
    if (err) return done(err);
    fs.fsync(fd, (syncErr) => fs.close(fd, (closeErr) => done(syncErr || closeErr)));
  });
}

function mkdirDurable(dir, cb) {
  fs.mkdir(dir, { recursive: true }, (err, first) => {
    if (err || first === undefined) return cb(err);
    const stop = path.dirname(first);
    const up = (current) =>
      fsyncDir(current, (e) => {
        if (e || current === stop || current === path.dirname(current)) return cb(e);
        up(path.dirname(current));
      });
    up(path.dirname(dir));
  });
}

function isStrictlyInside(child, parent) {
  const rel = path.relative(parent, child);
  return rel !== "" && rel !== ".." && !rel.startsWith(".." + path.sep) && !path.isAbsolute(rel);
}

function pruneEmptyDirs(dir, root, cb) {
  if (!isStrictlyInside(dir, root)) return cb();
  fs.rmdir(dir, (err) => {
    if (err && err.code !== "ENOENT") return cb();
    pruneEmptyDirs(path.dirname(dir), root, cb);
  });
}

function put({ id, file, temp, root, data: bytes }) {
  const dir = path.dirname(file);
  const reply = (msg) => parentPort.postMessage({ id, out: [msg] });
  let fd;
  const fail = (err) => {
    const cleanUp = () =>
      fs.rm(temp, { force: true }, () => pruneEmptyDirs(dir, root, () => reply(failure(err))));
    if (fd === undefined) return cleanUp();
    const closing = fd;
    fd = undefined;
    fs.close(closing, cleanUp);
  };
  const step = (next) => (err, value) => (err ? fail(err) : next(value));
  let attempt = 0;
  const openTemp = () =>
    mkdirDurable(dir, step(() =>
      fs.open(temp, "wx", 0o666, (err, opened) => {
        // A concurrent delete may prune the folder between the mkdir and the open.
        if (err && err.code === "ENOENT" && ++attempt < OPEN_TEMP_ATTEMPTS) return openTemp();
        if (err) return fail(err);
        fd = opened;
        write(0);
      }),
    ));
  const write = (offset) =>
    fs.write(fd, bytes, offset, bytes.byteLength - offset, null, step((n) => {
      if (offset + n < bytes.byteLength) return write(offset + n);
      fs.fsync(fd, step(() => fs.fstat(fd, { bigint: true }, step(closeAndRename))));
    }));
  const closeAndRename = (st) => {
    const closing = fd;
    fd = undefined;
    fs.close(closing, step(() =>
      fs.rename(temp, file, step(() =>
        fsyncDir(dir, step(() =>
          reply({ ...stamp(st), written: bytes.byteLength, md5: hash("md5", bytes, "hex") }),
        )),
      )),
    ));
  };
  openTemp();
}

parentPort.on("message", (m) => {
  if (m.kind === "put") put(m);
  else if (m.kind === "stat") statBatch(m);
  else readBatch(m);
});
`;
