/**
 * One callback-style fs call as a promise. The blob store's hot paths use the callback API:
 * fs/promises' FileHandle costs about twice the CPU per call, and a first load puts 100,000
 * small files (and fsyncs as many new folders).
 */
export function fsCall<T>(start: (cb: (err: Error | null, value?: T) => void) => void): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    start((err, value) => (err ? reject(err) : resolve(value as T)));
  });
}
