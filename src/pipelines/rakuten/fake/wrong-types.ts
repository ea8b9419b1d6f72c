import { type FakeAnswer, json } from "./fake-bodies.ts";

/**
 * The `wrongTypes` fault: a well-formed answer in which one value has the wrong type, as a
 * broken or changed API may send. The first item gets a price that is not a number and tag ids
 * that are not a list; a genre answer a level that is not a number; a tag answer a parent tag id
 * that is not a number. An answer without any of these is returned unchanged.
 */
export function withWrongTypes(answer: FakeAnswer): FakeAnswer {
  const text =
    typeof answer.body === "string" ? answer.body : Buffer.from(answer.body).toString("utf8");
  const body = JSON.parse(text) as Record<string, unknown>;
  const item = unwrap(first(body.Items), "Item");
  const genre = body.current as Record<string, unknown> | undefined;
  const tag = unwrap(first(unwrap(first(body.tagGroups), "tagGroup")?.tags), "tag");
  if (item) {
    item.itemPrice = "要問合せ";
    item.tagIds = "1000317,1000318";
  } else if (genre && typeof genre === "object") {
    genre.genreLevel = "top";
  } else if (tag) {
    tag.parentTagId = "none";
  } else {
    return answer;
  }
  return json(body, answer.status, answer.headers);
}

function first(list: unknown): unknown {
  return Array.isArray(list) ? list[0] : undefined;
}

/** An entry, or what formatVersion 1 wraps in `{ [key]: … }`. */
function unwrap(entry: unknown, key: string): Record<string, unknown> | undefined {
  if (typeof entry !== "object" || entry === null) return undefined;
  const e = entry as Record<string, unknown>;
  return (typeof e[key] === "object" && e[key] !== null ? e[key] : e) as Record<string, unknown>;
}
