import { createHash } from "node:crypto";
import { escapeHtml } from "../stages/mail/digest.ts";

/** A deterministic number from the parts (same parts, same number, every process). */
export function seeded(...parts: Array<string | number>): number {
  return createHash("sha256").update(parts.join("|")).digest().readUInt32BE(0);
}

const ID_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";

/** A 12-char Google-style volume id (`zyTCAlFPjgYC`). */
function volumeId(seed: string): string {
  const bytes = createHash("sha256").update(seed).digest();
  let id = "";
  for (let i = 0; i < 12; i++) id += ID_ALPHABET[bytes[i]! % 64];
  return id;
}

const ADJECTIVES = [
  "Practical",
  "Modern",
  "Essential",
  "Strategic",
  "Lean",
  "Applied",
  "Agile",
  "Human",
  "Quiet",
  "Radical",
];
const NOUNS = [
  "Handbook",
  "Playbook",
  "Field Guide",
  "Principles",
  "Toolkit",
  "Journey",
  "Casebook",
  "Manifesto",
  "Primer",
  "Patterns",
];
const TOPICS = [
  "Management",
  "Consulting",
  "Leadership",
  "Strategy",
  "Operations",
  "Change",
  "Teams",
  "Negotiation",
];
const FIRST = [
  "Aiko",
  "Ben",
  "Chloé",
  "Daisuke",
  "Elena",
  "Farid",
  "Grace",
  "Hiro",
  "Ines",
  "Jun",
  "Kara",
  "Luis",
];
const LAST = [
  "Tanaka",
  "Okafor",
  "Müller",
  "Suzuki",
  "Novak",
  "Silva",
  "Kim",
  "Watanabe",
  "Haddad",
  "Smith",
];
const PUBLISHERS = [
  "Harbor Press",
  "Kaizen Books",
  "North & Field",
  "Shoeisha",
  "O'Reilly Media",
  "Diamond",
];
const CATEGORIES = [
  "Business & Economics",
  "Business & Economics / Consulting",
  "Business & Economics / Management",
  "Self-Help",
];

function pick<T>(list: readonly T[], n: number): T {
  return list[n % list.length]!;
}

/** The word a query is about: `intitle:consulting` → `Consulting` (shows up in titles). */
function topicOf(query: string): string {
  const word = query.replace(/^[a-z]+:/i, "").split(/\s+/)[0] ?? "";
  const clean = word.replace(/[^\p{L}\p{N}-]/gu, "");
  return clean ? clean[0]!.toUpperCase() + clean.slice(1) : "Books";
}

/** A valid ISBN-13 (978 prefix, correct check digit) from a seed. */
function isbn13(seed: number): string {
  const body = `978${String(seed % 1_000_000_000).padStart(9, "0")}`;
  const sum = [...body].reduce((acc, d, i) => acc + Number(d) * (i % 2 === 0 ? 1 : 3), 0);
  return `${body}${(10 - (sum % 10)) % 10}`;
}

/** The ISBN-10 of a 978 ISBN-13. */
function isbn10(isbn: string): string {
  const core = isbn.slice(3, 12);
  const sum = [...core].reduce((acc, d, i) => acc + Number(d) * (10 - i), 0);
  const check = (11 - (sum % 11)) % 11;
  return `${core}${check === 10 ? "X" : String(check)}`;
}

/** Options that change which volumes a search finds. */
export interface CorpusKey {
  q: string;
  langRestrict?: string;
  printType?: string;
  filter?: string;
}

/** A volume in Google's JSON shape, varied like the real data (missing fields, date forms). */
export function makeVolume(
  seedKey: string,
  topic: string,
  language: string,
): Record<string, unknown> {
  const h = (part: string) => seeded(seedKey, part);
  const id = volumeId(seedKey);
  const year = 1990 + (h("year") % 36);
  const month = String(1 + (h("month") % 12)).padStart(2, "0");
  const day = String(1 + (h("day") % 28)).padStart(2, "0");
  const dateForm = h("dateForm") % 10;
  const publishedDate =
    dateForm === 0 ? `${year}` : dateForm === 1 ? `${year}-${month}` : `${year}-${month}-${day}`;
  const title = `${pick(ADJECTIVES, h("adj"))} ${topic} ${pick(NOUNS, h("noun"))}`;
  const authorCount = h("authors") % 4; // 0 = no authors field, as happens
  const authors = Array.from(
    { length: authorCount },
    (_, i) => `${pick(FIRST, h(`f${i}`))} ${pick(LAST, h(`l${i}`))}`,
  );
  const isbn = isbn13(h("isbn"));
  const idForm = h("ids") % 8;
  const industryIdentifiers =
    idForm === 0
      ? [{ type: "OTHER", identifier: `OCLC:${h("oclc") % 100_000_000}` }]
      : idForm === 1
        ? undefined
        : [
            { type: "ISBN_10", identifier: isbn10(isbn) },
            { type: "ISBN_13", identifier: isbn },
          ];
  const descForm = h("desc") % 6;
  const topicLine = `${topic} for people who do the work: ${pick(TOPICS, h("t1")).toLowerCase()}, ${pick(TOPICS, h("t2")).toLowerCase()} and what changes on Monday.`;
  const description =
    descForm === 0
      ? undefined
      : descForm === 1
        ? `<p><b>${title}</b> &mdash; ${topicLine}</p><p>Second edition.</p>`
        : topicLine;
  const rated = h("rated") % 3 === 0;
  const link = `http://books.google.com/books?id=${id}`;
  const volumeInfo: Record<string, unknown> = {
    title,
    ...(h("sub") % 3 === 0 ? { subtitle: `${pick(TOPICS, h("subt"))} in Practice` } : {}),
    ...(authors.length > 0 ? { authors } : {}),
    ...(h("pub") % 5 === 0 ? {} : { publisher: pick(PUBLISHERS, h("publisher")) }),
    publishedDate,
    ...(description === undefined ? {} : { description }),
    ...(industryIdentifiers ? { industryIdentifiers } : {}),
    readingModes: { text: false, image: true },
    ...(h("pages") % 7 === 0 ? {} : { pageCount: 80 + (h("pageCount") % 500) }),
    printType: "BOOK",
    categories: [pick(CATEGORIES, h("cat"))],
    ...(rated
      ? { averageRating: 1 + (h("rating") % 9) / 2, ratingsCount: 1 + (h("ratings") % 300) }
      : {}),
    maturityRating: "NOT_MATURE",
    allowAnonLogging: false,
    contentVersion: "0.1.0.0.preview.1",
    imageLinks: {
      smallThumbnail: `http://books.google.com/books/content?id=${id}&printsec=frontcover&img=1&zoom=5&source=gbs_api`,
      thumbnail: `http://books.google.com/books/content?id=${id}&printsec=frontcover&img=1&zoom=1&source=gbs_api`,
    },
    language,
    previewLink: `${link}&printsec=frontcover&dq=${encodeURIComponent(topic)}&hl=&cd=1&source=gbs_api`,
    infoLink: `${link}&dq=${encodeURIComponent(topic)}&hl=&source=gbs_api`,
    canonicalVolumeLink: `https://books.google.com/books/about/${encodeURIComponent(title.replace(/ /g, "_"))}.html?hl=&id=${id}`,
  };
  return {
    kind: "books#volume",
    id,
    etag: volumeId(`${seedKey}#etag`).slice(0, 11),
    selfLink: `https://www.googleapis.com/books/v1/volumes/${id}`,
    volumeInfo,
    saleInfo: { country: "JP", saleability: "NOT_FOR_SALE", isEbook: false },
    accessInfo: {
      country: "JP",
      viewability: "PARTIAL",
      embeddable: true,
      publicDomain: false,
      textToSpeechPermission: "ALLOWED",
      accessViewStatus: "SAMPLE",
      quoteSharingAllowed: false,
    },
    ...(description === undefined
      ? {}
      : { searchInfo: { textSnippet: escapeHtml(topicLine.slice(0, 90)) } }),
  };
}

/** One query's result list: its size, where Google stops serving items, and the items. */
export interface Corpus {
  /** What `totalItems` says before drift. */
  size: number;
  /** Positions at or past this return no `items` (real searches stop near 1,000). */
  reachable: number;
  volumes: Array<Record<string, unknown>>;
}

/** Share of positions that show a volume from the pool every query draws on (1 in N). */
const SHARED_EVERY = 8;
const SHARED_POOL = 60;

/**
 * Builds a query's result list. Sizes are seeded per query (40–1,399) unless given; some
 * positions hold volumes shared by every query, so digests must collapse cross-query duplicates.
 */
export function buildCorpus(key: CorpusKey, orderBy: string | undefined, size?: number): Corpus {
  const base = `${key.q}|${key.langRestrict ?? ""}|${key.printType ?? ""}|${key.filter ?? ""}`;
  const total = size ?? 40 + (seeded(base, "size") % 1360);
  const reachable = Math.min(total, 960 + (seeded(base, "cap") % 80));
  const topic = topicOf(key.q);
  const language = key.langRestrict ?? "en";
  const volumes = Array.from({ length: reachable }, (_, i) => {
    const shared = seeded(base, i, "shared") % SHARED_EVERY === 0;
    const seedKey = shared ? `shared#${seeded(base, i, "which") % SHARED_POOL}` : `${base}#${i}`;
    return makeVolume(seedKey, shared ? "Management" : topic, language);
  });
  if (orderBy === "newest") {
    const date = (v: Record<string, unknown>) =>
      String((v.volumeInfo as { publishedDate?: string }).publishedDate ?? "");
    volumes.sort((a, b) => (date(a) < date(b) ? 1 : date(a) > date(b) ? -1 : 0));
  }
  return { size: total, reachable, volumes };
}
