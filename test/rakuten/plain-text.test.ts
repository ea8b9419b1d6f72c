// The embedding text reads shop-written HTML as plain text; the recipe's version is part of the hash.
import { describe, expect, it } from "vitest";
import { plainText } from "../../src/pipelines/rakuten/stages/embeddings/plain-text.ts";
import {
  buildSourceText,
  CAPTION_CHARS,
  EMBEDDING_SOURCE_APPLY_VERSION,
} from "../../src/pipelines/rakuten/stages/embeddings/source-text.ts";

describe("plainText", () => {
  it("drops tags and decodes character references as a real caption carries them", () => {
    expect(plainText("綿100%<br>日本製&nbsp;&gt;&gt;詳しくは<b>こちら</b>")).toBe(
      "綿100% 日本製\u00A0>>詳しくは こちら ",
    );
    expect(plainText("A&amp;B &lt;送料無料&gt; &quot;x&quot; &#39;y&#39; &yen;500")).toBe(
      "A&B <送料無料> \"x\" 'y' ¥500",
    );
    expect(plainText("&#12354;&#x3044;&#X3046;")).toBe("あいう");
  });

  it("keeps escaped markup as text, and text that only looks like markup", () => {
    expect(plainText("&lt;br&gt; is text")).toBe("<br> is text");
    expect(plainText("3<5 and 5>3, AT&T")).toBe("3<5 and 5>3, AT&T");
    expect(plainText("&foo; &amp &constructor; &toString;")).toBe(
      "&foo; &amp &constructor; &toString;",
    );
  });

  it("drops comments, scripts and styles; a bad code point becomes U+FFFD", () => {
    expect(plainText("a<!-- x -->b<script>alert(1)</script>c<style>p{}</style>d")).toBe("a b c d");
    expect(plainText("&#0;&#xD800;&#x110000;")).toBe("\uFFFD\uFFFD\uFFFD");
  });
});

describe("buildSourceText", () => {
  const base = { itemName: "今治タオル", genreName: null, tagNames: [] };

  it("builds the text from decoded, tag-free name, catch copy and caption", () => {
    const text = buildSourceText({
      ...base,
      catchcopy: "ギフト包装無料&nbsp;&gt;&gt;あす楽対応",
      itemCaption: "<p>綿100%</p><br><br>&lt;ご注意&gt;&nbsp;<b>のし&amp;カード</b>無料",
    });
    expect(text).toBe("今治タオル\nギフト包装無料 >>あす楽対応\n綿100% <ご注意> のし&カード 無料");
  });

  it("cuts the caption at 400 characters of text, not of markup", () => {
    const caption = `${"<br>".repeat(300)}${"あ".repeat(CAPTION_CHARS)}`;
    const text = buildSourceText({ ...base, catchcopy: null, itemCaption: caption });
    expect(text.split("\n")[1]).toBe("あ".repeat(CAPTION_CHARS));
  });

  it("is a new recipe version, so every stored text is rebuilt", () => {
    expect(EMBEDDING_SOURCE_APPLY_VERSION).toBe(2);
  });
});
