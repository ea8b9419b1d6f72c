/**
 * Seed §4.4: a query is exhausted only after a successful call that reported totalItems, when
 * the page came back empty or reached totalItems. Failed calls never exhaust anything.
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
