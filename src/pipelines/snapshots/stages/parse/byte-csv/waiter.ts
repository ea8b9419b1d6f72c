/** One waiter woken by the next event: the loops that feed worker threads wait on it. */
export class Waiter {
  #wake: (() => void) | undefined;

  /** Resolves at the next wake(). */
  wait(): Promise<void> {
    return new Promise((resolve) => {
      this.#wake = resolve;
    });
  }

  /** Wakes the waiter, if any. */
  wake(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}
