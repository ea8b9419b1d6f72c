import { type Kysely, sql } from "kysely";
import type { Clock } from "../../engine/clock/clock.ts";
import { type Database, typed } from "../../infra/db/open-database.ts";
import type { UiTables } from "./ui-tables.ts";

/** How many wrong tokens a client may send within the window before sign-in is refused. */
export interface ThrottleLimits {
  readonly maxFailures: number;
  readonly windowMs: number;
}

/** 10 wrong tokens in 15 minutes: plenty for a person mistyping, nothing for a guesser. */
export const SIGN_IN_LIMITS: ThrottleLimits = { maxFailures: 10, windowMs: 15 * 60_000 };

/** A sign-in attempt let through to the token check: say how it went. */
export interface SignInAttempt {
  /** The token was right: the attempt does not count as a failure. */
  succeeded(): Promise<void>;
}

/** Either the attempt may check its token, or the client must wait `retryAfterSeconds`. */
export type ThrottleDecision =
  | { readonly locked: false; readonly attempt: SignInAttempt }
  | { readonly locked: true; readonly retryAfterSeconds: number };

const TABLE = "tm_ui_sign_in_failures";

/**
 * Throttles dashboard sign-in per client (`tm_ui_sign_in_failures`), shared by every `serve`
 * process on the database. A window opens at a client's first failure and lasts `windowMs`;
 * within it at most `maxFailures` tokens are checked. Each attempt is counted as a failure
 * *before* its token is checked, in one conditional upsert, so a burst of concurrent attempts
 * cannot all slip under the limit; a right token then takes its count back. Nothing about the
 * token tried is stored.
 */
export class SignInThrottle {
  // Typed on use: an app built over a runtime without a database (API-only tests) never asks.
  readonly #database: Database;
  readonly #clock: Clock;
  readonly #limits: ThrottleLimits;

  constructor(db: Database, clock: Clock, limits: ThrottleLimits = SIGN_IN_LIMITS) {
    this.#database = db;
    this.#clock = clock;
    this.#limits = limits;
  }

  get #db(): Kysely<UiTables> {
    return typed<UiTables>(this.#database);
  }

  /** Counts an attempt by `client` and decides whether its token may be checked. */
  async begin(client: string): Promise<ThrottleDecision> {
    const nowMs = this.#clock.now().getTime();
    const now = new Date(nowMs).toISOString();
    const since = new Date(nowMs - this.#limits.windowMs).toISOString();
    // Pruned on use rather than by a timer: a row past its window counts for nobody.
    await this.#db.deleteFrom(TABLE).where("window_start", "<=", since).execute();
    const ref = (column: "window_start" | "failures") => sql.ref(`${TABLE}.${column}`);
    const ended = sql<boolean>`${ref("window_start")} <= ${since}`;
    // An ended window, or one whose failures were all taken back, starts again now.
    const restart = sql<boolean>`(${ended} or ${ref("failures")} = 0)`;
    const res = await this.#db
      .insertInto(TABLE)
      .values({ client, window_start: now, failures: 1 })
      .onConflict((oc) =>
        oc
          .column("client")
          .doUpdateSet({
            failures: sql<number>`case when ${ended} then 1 else ${ref("failures")} + 1 end`,
            window_start: sql<string>`case when ${restart} then ${now} else ${ref("window_start")} end`,
          })
          // Below the limit, or the window is over: counted. Otherwise nothing changes.
          .where(sql<boolean>`(${ref("failures")} < ${this.#limits.maxFailures} or ${ended})`),
      )
      .executeTakeFirst();
    if (Number(res.numInsertedOrUpdatedRows ?? 0) === 1) {
      return { locked: false, attempt: { succeeded: () => this.#takeBack(client) } };
    }
    const row = await this.#db
      .selectFrom(TABLE)
      .select("window_start")
      .where("client", "=", client)
      .executeTakeFirst();
    const until = row ? new Date(row.window_start).getTime() + this.#limits.windowMs : nowMs;
    return { locked: true, retryAfterSeconds: Math.max(1, Math.ceil((until - nowMs) / 1000)) };
  }

  async #takeBack(client: string): Promise<void> {
    await this.#db
      .updateTable(TABLE)
      .set({ failures: sql<number>`failures - 1` })
      .where("client", "=", client)
      .where("failures", ">", 0)
      .execute();
  }
}
