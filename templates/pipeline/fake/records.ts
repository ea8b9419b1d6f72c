/** The fake API's records: a fixed catalogue that tests and the demo change on purpose. */

/** One record as the fake API sends it. */
export interface FakeRecord {
  id: string;
  title: string;
  status: "open" | "closed";
  updated_at: string;
  /** A field the pipeline does not keep: changing it alone must not count as a change. */
  views: number;
}

const TITLES = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel"];

/** `count` records updated one minute apart, ending an hour before `now`. */
export function sampleRecords(count: number, now: number): FakeRecord[] {
  const first = now - 3_600_000 - count * 60_000;
  return Array.from({ length: count }, (_, i) => ({
    id: `rec-${String(i + 1).padStart(4, "0")}`,
    title: `${TITLES[i % TITLES.length]} ${i + 1}`,
    status: i % 3 === 0 ? "closed" : "open",
    updated_at: new Date(first + i * 60_000).toISOString(),
    views: i * 7,
  }));
}

/** Records ordered as the API pages them: by update time, then id. */
export function byUpdate(a: FakeRecord, b: FakeRecord): number {
  if (a.updated_at !== b.updated_at) return a.updated_at < b.updated_at ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
