import type { MailgunEvent, MailgunEventsPage } from "./types.ts";

/**
 * Checks the shape the client relies on (`items[]` with `id`, `event`, numeric `timestamp`,
 * and `paging`) without copying the items: pages come 300 events at a time, a million per
 * benchmark, so a full schema parse would cost more than the rest of the client. Throws a
 * one-line reason naming the first bad item.
 */
export function decodeEventsPage(json: unknown): MailgunEventsPage {
  if (typeof json !== "object" || json === null) throw new Error("body is not an object");
  const { items, paging } = json as { items?: unknown; paging?: unknown };
  if (!Array.isArray(items)) throw new Error("items: expected an array");
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Partial<MailgunEvent> | null;
    if (typeof item !== "object" || item === null) throw new Error(`items[${i}]: not an object`);
    if (typeof item.event !== "string") throw new Error(`items[${i}].event: expected a string`);
    if (typeof item.timestamp !== "number" || !Number.isFinite(item.timestamp)) {
      throw new Error(`items[${i}].timestamp: expected epoch seconds`);
    }
    if (typeof item.id !== "string") throw new Error(`items[${i}].id: expected a string`);
  }
  if (paging !== undefined && (typeof paging !== "object" || paging === null)) {
    throw new Error("paging: expected an object");
  }
  return { items: items as MailgunEvent[], paging: (paging ?? {}) as MailgunEventsPage["paging"] };
}
