/**
 * Iterates `source` while keeping up to `depth` further items requested, so the next Mailgun
 * page is on its way while the current one is applied. Stopping early returns the source.
 */
export async function* readAhead<T>(
  source: AsyncGenerator<T, void, undefined>,
  depth: number,
): AsyncGenerator<T, void, undefined> {
  const queue: Array<Promise<IteratorResult<T, void>>> = [];
  let ended = false;
  const fill = () => {
    while (!ended && queue.length < depth + 1) {
      const next = source.next();
      queue.push(next);
      next.then(
        (r) => {
          if (r.done) ended = true;
        },
        () => {
          ended = true;
        },
      );
    }
  };
  try {
    for (;;) {
      fill();
      const head = queue.shift() as Promise<IteratorResult<T, void>>;
      // Requests already queued must not reject unobserved when an earlier one fails.
      for (const p of queue) p.catch(() => undefined);
      const r = await head;
      if (r.done) return;
      yield r.value;
    }
  } finally {
    await source.return(undefined);
  }
}
