/** A captured message, decoded enough to read it: headers, text and HTML parts. */
export interface ParsedMail {
  headers: Map<string, string>;
  subject: string;
  text: string;
  html: string;
}

function splitHead(raw: string): { head: string; body: string } {
  const at = raw.search(/\r?\n\r?\n/);
  if (at < 0) return { head: raw, body: "" };
  const sep = raw.slice(at).match(/^\r?\n\r?\n/)![0];
  return { head: raw.slice(0, at), body: raw.slice(at + sep.length) };
}

function parseHeaders(head: string): Map<string, string> {
  const out = new Map<string, string>();
  // Folded lines continue with whitespace.
  for (const line of head.replace(/\r?\n[ \t]+/g, " ").split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon > 0) out.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return out;
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  const soft = text.replace(/=\r?\n/g, "");
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i]!;
    if (c === "=" && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, "utf8"));
    }
  }
  return Buffer.from(bytes).toString("utf8");
}

/** Decodes a part's body; line ends come back as `\n` (SMTP carries CRLF). */
function decodeBody(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? "7bit").toLowerCase();
  const decoded =
    enc === "base64"
      ? Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8")
      : enc === "quoted-printable"
        ? decodeQuotedPrintable(body)
        : body;
  return decoded.replace(/\r\n/g, "\n");
}

/** Decodes RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) in a header. */
export function decodeHeader(value: string): string {
  return value
    .replace(/\?=\s+=\?/g, "?==?")
    .replace(
      /=\?([^?]+)\?([BQbq])\?([^?]*)\?=/g,
      (_m, _charset: string, kind: string, data: string) =>
        kind.toUpperCase() === "B"
          ? Buffer.from(data, "base64").toString("utf8")
          : decodeQuotedPrintable(data.replace(/_/g, " ")),
    );
}

function boundaryOf(contentType: string): string | undefined {
  return /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
}

/** Collects the text/plain and text/html parts of a (possibly nested multipart) entity. */
function walk(raw: string, out: { text: string; html: string }): Map<string, string> {
  const { head, body } = splitHead(raw);
  const headers = parseHeaders(head);
  const type = headers.get("content-type") ?? "text/plain";
  const boundary = boundaryOf(type);
  if (/^multipart\//i.test(type) && boundary) {
    const parts = body.split(`--${boundary}`).slice(1);
    for (const part of parts) {
      if (part.startsWith("--")) break;
      walk(part.replace(/^\r?\n/, ""), out);
    }
  } else if (/^text\/html/i.test(type)) {
    out.html += decodeBody(body, headers.get("content-transfer-encoding"));
  } else if (/^text\/plain/i.test(type)) {
    out.text += decodeBody(body, headers.get("content-transfer-encoding"));
  }
  return headers;
}

/** Parses a raw RFC 5322 message as nodemailer writes it (enough for the demo and tests). */
export function parseMail(raw: string): ParsedMail {
  const out = { text: "", html: "" };
  const headers = walk(raw, out);
  return { headers, subject: decodeHeader(headers.get("subject") ?? ""), ...out };
}
