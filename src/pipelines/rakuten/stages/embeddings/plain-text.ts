/*
 * Shop-written item text (captions, catch copies) as plain text for the embedding: Rakuten sends
 * it as the shop wrote it, with HTML tags (`<br>`, `<b>`, `<table>`) and character references
 * (`&nbsp;`, `&gt;`, `&#12354;`). Only the embedding text is reduced; the raw store and the
 * content hash keep the text as sent (see docs/pipelines/rakuten.md, "Embeddings").
 */

/** The named references shops use, and those that stand for marks and spaces. */
const NAMED: Readonly<Record<string, string>> = {
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  nbsp: "\u00A0",
  ensp: "\u2002",
  emsp: "\u2003",
  thinsp: "\u2009",
  yen: "¥",
  copy: "©",
  reg: "®",
  trade: "™",
  deg: "°",
  plusmn: "±",
  times: "×",
  divide: "÷",
  middot: "·",
  bull: "•",
  hellip: "…",
  ndash: "–",
  mdash: "—",
  lsquo: "‘",
  rsquo: "’",
  ldquo: "“",
  rdquo: "”",
  laquo: "«",
  raquo: "»",
  sect: "§",
  para: "¶",
  micro: "µ",
  frac12: "½",
  frac14: "¼",
  frac34: "¾",
  sup2: "²",
  sup3: "³",
  larr: "←",
  rarr: "→",
  uarr: "↑",
  darr: "↓",
  hearts: "♥",
  spades: "♠",
  clubs: "♣",
  diams: "♦",
  star: "☆",
  starf: "★",
  check: "✓",
  cross: "✗",
};

/** Elements whose content is no text at all. */
const HIDDEN_ELEMENTS = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
/** Comments. */
const COMMENTS = /<!--[\s\S]*?-->/g;
/** A start or end tag (`<br>`, `<br/>`, `</p>`, `<a href="…">`); "3<5" is not one. */
const TAGS = /<\/?[a-zA-Z][^<>]*>/g;
/** A character reference, with its semicolon: `&amp;`, `&#38;`, `&#x26;`. */
const REFERENCES = /&(?:#(\d{1,8})|#[xX]([0-9a-fA-F]{1,7})|([a-zA-Z][a-zA-Z0-9]{1,31}));/g;

/** A code point from a numeric reference: U+FFFD for 0, surrogates and beyond U+10FFFF. */
function codePoint(n: number): string {
  if (n === 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) return "\uFFFD";
  return String.fromCodePoint(n);
}

/**
 * `html` as plain text: comments, scripts and styles removed, every tag replaced by a space
 * (a `<br>` separates words as a line break does), then character references decoded. Tags go
 * first, so an escaped `&lt;b&gt;` stays as the text `<b>`. An unknown name (`&foo;`) and a
 * reference without its semicolon are left as written.
 */
export function plainText(html: string): string {
  if (!html.includes("<") && !html.includes("&")) return html;
  return html
    .replace(COMMENTS, " ")
    .replace(HIDDEN_ELEMENTS, " ")
    .replace(TAGS, " ")
    .replace(REFERENCES, (ref, dec?: string, hex?: string, name?: string) => {
      if (dec !== undefined) return codePoint(Number.parseInt(dec, 10));
      if (hex !== undefined) return codePoint(Number.parseInt(hex, 16));
      return named(name ?? "") ?? named((name ?? "").toLowerCase()) ?? ref;
    });
}

/** A named reference's text; never a property inherited from Object (`&constructor;`). */
function named(name: string): string | undefined {
  return Object.hasOwn(NAMED, name) ? NAMED[name] : undefined;
}
