import { describe, expect, it } from "vitest";
import { decodeHeader, parseMail } from "../../src/pipelines/books/fake/mime-lite.ts";

describe("parseMail", () => {
  it("decodes a multipart/alternative message with quoted-printable and base64 parts", () => {
    const raw = [
      "From: a@example.com",
      "Subject: =?UTF-8?Q?Nouveaux_livres_=E2=80=94?= =?UTF-8?B?5pys?=",
      'Content-Type: multipart/alternative; boundary="--b1"',
      "",
      "----b1",
      "Content-Type: text/plain; charset=utf-8",
      "Content-Transfer-Encoding: quoted-printable",
      "",
      "1. Caf=C3=A9 =",
      "Society",
      "----b1",
      "Content-Type: text/html; charset=utf-8",
      "Content-Transfer-Encoding: base64",
      "",
      Buffer.from("<b>Café</b>").toString("base64"),
      "----b1--",
      "",
    ].join("\r\n");
    const mail = parseMail(raw);
    expect(mail.subject).toBe("Nouveaux livres —本");
    expect(mail.text.trim()).toBe("1. Café Society");
    expect(mail.html.trim()).toBe("<b>Café</b>");
    expect(mail.headers.get("from")).toBe("a@example.com");
  });

  it("leaves plain headers alone", () => {
    expect(decodeHeader("New books")).toBe("New books");
  });
});
