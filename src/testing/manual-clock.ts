import type { Clock } from "../engine/clock/clock.ts";

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  #now: Date;

  constructor(start: Date | string = "2026-01-15T09:30:00.000Z") {
    this.#now = new Date(start);
  }

  now(): Date {
    return new Date(this.#now);
  }

  /** Moves time forward by ms. */
  advance(ms: number): void {
    this.#now = new Date(this.#now.getTime() + ms);
  }

  /** Jumps to a time. */
  set(time: Date | string): void {
    this.#now = new Date(time);
  }
}
