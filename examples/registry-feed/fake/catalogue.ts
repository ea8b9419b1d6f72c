/** The fake registry's packages and its changes feed, changed on purpose by tests and the demo. */

/** A package as the fake keeps it. */
export interface FakePackage {
  name: string;
  versions: string[];
  license: string;
  modified: string;
  /** Noise the pipeline must not count as a change. */
  downloads: number;
}

/** One entry of the changes feed. */
export interface FakeChange {
  seq: number;
  id: string;
  deleted?: boolean;
}

const WORDS = ["left", "right", "tiny", "quick", "lazy", "bright", "calm", "eager"];
const THINGS = ["pad", "parse", "fetch", "cache", "queue", "clock", "json", "path"];

/** A registry of `count` packages, each published in one to three versions. */
export class Catalogue {
  readonly packages = new Map<string, FakePackage>();
  readonly changes: FakeChange[] = [];

  constructor(count: number, now: number) {
    for (let i = 0; i < count; i++) {
      const name = `${WORDS[i % WORDS.length]}-${THINGS[Math.floor(i / WORDS.length) % THINGS.length]}${i >= 64 ? `-${i}` : ""}`;
      const when = new Date(now - (count - i) * 3_600_000).toISOString();
      this.packages.set(name, {
        name,
        versions: [],
        license: i % 4 === 0 ? "ISC" : "MIT",
        modified: when,
        downloads: i * 100,
      });
      for (let v = 0; v <= i % 3; v++) this.publish(name, `1.${v}.0`, when);
    }
  }

  /** The newest sequence number (0 when the feed is empty). */
  get lastSeq(): number {
    return this.changes.at(-1)?.seq ?? 0;
  }

  /** Adds a version to a package (creating it), as a new change. */
  publish(name: string, version: string, at = new Date().toISOString()): void {
    const pkg = this.packages.get(name) ?? {
      name,
      versions: [],
      license: "MIT",
      modified: at,
      downloads: 0,
    };
    pkg.versions.push(version);
    pkg.modified = at;
    this.packages.set(name, pkg);
    this.changes.push({ seq: this.lastSeq + 1, id: name });
  }

  /** Removes a package, as a change marked deleted. */
  unpublish(name: string): void {
    this.packages.delete(name);
    this.changes.push({ seq: this.lastSeq + 1, id: name, deleted: true });
  }

  /** The changes after `since`, at most `limit`. */
  changesAfter(since: number, limit: number): FakeChange[] {
    return this.changes.filter((c) => c.seq > since).slice(0, limit);
  }
}
