import type { DigestBook } from "../../repos/digest-candidates.ts";

/** A rendered digest: what is mailed, or printed on --dry-run. */
export interface Digest {
  subject: string;
  text: string;
  html: string;
}

const DESCRIPTION_MAX = 300;

const ENTITIES: Record<string, string> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  "#39": "'",
  apos: "'",
  nbsp: " ",
  mdash: "—",
  ndash: "–",
  hellip: "…",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  copy: "©",
  reg: "®",
};

/** Google descriptions may hold HTML (`<p>`, `<b>`, entities): reduce them to plain text. */
export function plainText(html: string): string {
  return html
    .replace(/<br\s*\/?>|<\/p>/gi, " ")
    .replace(/<[^>]*>/g, "")
    .replace(/&(#\d+|#x[0-9a-f]+|[a-z]+);/gi, (m, name: string) => {
      const lower = name.toLowerCase();
      if (lower in ENTITIES) return ENTITIES[lower]!;
      if (lower.startsWith("#x")) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16));
      if (lower.startsWith("#")) return String.fromCodePoint(Number(lower.slice(1)));
      return m;
    })
    .replace(/\s+/g, " ")
    .trim();
}

/** Cuts at a word boundary when there is one near the limit, and marks the cut. */
function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/** Escapes text for HTML element content and attribute values. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

function fullTitle(b: DigestBook): string {
  return b.subtitle ? `${b.title}: ${b.subtitle}` : b.title;
}

function byline(b: DigestBook): string {
  const who = b.authors.length > 0 ? b.authors.join(", ") : "Unknown author";
  const where = [b.publisher, b.publishedDate].filter((x): x is string => x !== null).join(", ");
  return where ? `${who} — ${where}` : who;
}

function facts(b: DigestBook): string {
  const parts: string[] = [];
  if (b.isbn13) parts.push(`ISBN-13 ${b.isbn13}`);
  if (b.pageCount) parts.push(`${b.pageCount} pages`);
  if (b.averageRating !== null) {
    const n = b.ratingsCount ?? 0;
    parts.push(`rated ${b.averageRating}/5 (${n} rating${n === 1 ? "" : "s"})`);
  }
  return parts.join(" · ");
}

/** Only http(s) links reach the HTML (a `javascript:` link from a bad payload must not). */
function safeHref(url: string | null): string | null {
  return url && /^https?:\/\//i.test(url) ? url : null;
}

/** Renders the digest as plain text and HTML; every value from the API is escaped in HTML. */
export function renderDigest(input: {
  subject: string;
  jobName: string;
  books: readonly DigestBook[];
}): Digest {
  const { subject, jobName, books } = input;
  const heading = `${books.length} new book${books.length === 1 ? "" : "s"} for ${jobName}`;
  const footer = `Sent by tidemark job ${jobName}. Books are never mailed twice; to start over: tidemark mail reset ${jobName} --yes`;

  const textBlocks = books.map((b, i) => {
    const lines = [`${i + 1}. ${fullTitle(b)}`, `   ${byline(b)}`];
    const f = facts(b);
    if (f) lines.push(`   ${f}`);
    if (b.description) lines.push(`   ${truncate(plainText(b.description), DESCRIPTION_MAX)}`);
    if (b.link) lines.push(`   ${b.link}`);
    return lines.join("\n");
  });
  const text = [`${subject}: ${heading}`, "", textBlocks.join("\n\n"), "", "--", footer, ""].join(
    "\n",
  );

  const htmlBlocks = books.map((b) => {
    const href = safeHref(b.link);
    const title = escapeHtml(fullTitle(b));
    const img = safeHref(b.thumbnail);
    const f = facts(b);
    return [
      '<li style="margin-bottom:1.2em">',
      img
        ? `<img src="${escapeHtml(img)}" alt="" width="64" style="float:left;margin-right:12px">`
        : "",
      `<div><strong>${href ? `<a href="${escapeHtml(href)}">${title}</a>` : title}</strong></div>`,
      `<div>${escapeHtml(byline(b))}</div>`,
      f ? `<div style="color:#555">${escapeHtml(f)}</div>` : "",
      b.description
        ? `<p>${escapeHtml(truncate(plainText(b.description), DESCRIPTION_MAX))}</p>`
        : "",
      '<div style="clear:both"></div>',
      "</li>",
    ]
      .filter((l) => l !== "")
      .join("\n");
  });
  const html = [
    "<!doctype html>",
    `<html><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head>`,
    '<body style="font-family:sans-serif">',
    `<h1 style="font-size:1.3em">${escapeHtml(heading)}</h1>`,
    `<ol>\n${htmlBlocks.join("\n")}\n</ol>`,
    `<p style="color:#777;font-size:0.85em">${escapeHtml(footer)}</p>`,
    "</body></html>",
    "",
  ].join("\n");
  return { subject, text, html };
}
