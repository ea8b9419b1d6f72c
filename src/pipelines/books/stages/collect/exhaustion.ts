/**
 * A query is exhausted only after a successful call that reported totalItems, when the page was
 * the documented empty answer (no items) or reached totalItems. Failed calls, a body of the wrong
 * shape included, never exhaust anything (docs/pipelines/books.md, "Answers").
 */
export function checkExhaustion(
  apiSuccess: boolean,
  totalItems: number | undefined,
  startIndex: number,
  itemsLength: number,
): boolean {
  if (!apiSuccess || totalItems === undefined) return false;
  return itemsLength === 0 || startIndex + itemsLength >= totalItems;
}
