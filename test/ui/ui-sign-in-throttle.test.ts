// Sign-in is throttled per client: after 10 wrong tokens in 15 minutes the form answers 429 with
// Retry-After and says so, without looking at the token; other clients are not affected, and
// the count is shared by every `serve` process on the database.
import { sql } from "kysely";
import { expect, it } from "vitest";
import { describeEachDialect } from "../../src/testing/dialects.ts";
import { ManualClock } from "../../src/testing/manual-clock.ts";
import { openTestRuntime } from "../../src/testing/test-runtime.ts";
import { appWithTokens, secondRuntime, signInAs } from "./ui-app.ts";

const TOKEN = "sign-in-throttle-token-0123456789abcdef";
const WRONG = "wrong-guess-token-fedcba9876543210";
const GUESSER = "198.51.100.7";
const COLLEAGUE = "198.51.100.8";

describeEachDialect("dashboard sign-in throttle", (h) => {
  it("the 11th wrong token in 15 minutes gets 429, a right one too, until the window has passed", async () => {
    const clock = new ManualClock();
    const runtime = await openTestRuntime(h, { clock });
    const app = appWithTokens(runtime, [TOKEN]);
    for (let i = 1; i <= 10; i++) {
      const { res } = await signInAs(app, WRONG, GUESSER);
      expect(res.status, `attempt ${i}`).toBe(401);
      expect(await res.text()).toContain("That token is not accepted.");
      clock.advance(1000);
    }
    const locked = await signInAs(app, WRONG, GUESSER);
    expect(locked.res.status).toBe(429);
    // The first failure leaves the window 15 minutes after it was made, 10 s ago.
    expect(locked.res.headers.get("retry-after")).toBe(String(15 * 60 - 10));
    const page = await locked.res.text();
    expect(page).toContain("Too many failed sign-ins from your address: try again in 15 minutes.");
    expect(page).toContain("Sign in to Tidemark");

    // While locked, the right token is refused as well: the token is not checked at all.
    const right = await signInAs(app, TOKEN, GUESSER);
    expect(right.res.status).toBe(429);
    expect(right.session).toBe("");

    // Refused attempts do not stretch the lock: it opens 15 minutes after the first failure.
    clock.advance(5 * 60_000);
    const later = await signInAs(app, WRONG, GUESSER);
    expect(later.res.status).toBe(429);
    expect(later.res.headers.get("retry-after")).toBe(String(10 * 60 - 10));
    expect(await later.res.text()).toContain("try again in 10 minutes.");

    clock.advance(10 * 60_000);
    const open = await signInAs(app, TOKEN, GUESSER);
    expect(open.res.status).toBe(303);
    expect((await app.request("/ui", { headers: { cookie: open.session } })).status).toBe(200);
  });

  it("failures from one client do not lock out another, on any process of the database", async () => {
    const clock = new ManualClock();
    const runtime = await openTestRuntime(h, { clock });
    const app = appWithTokens(runtime, [TOKEN]);
    // A second process on the same database counts the same failures.
    const other = appWithTokens(await secondRuntime(runtime, clock), [TOKEN]);
    for (let i = 0; i < 10; i++) await signInAs(i % 2 ? app : other, WRONG, GUESSER);
    expect((await signInAs(other, TOKEN, GUESSER)).res.status).toBe(429);
    expect((await signInAs(app, TOKEN, GUESSER)).res.status).toBe(429);

    const colleague = await signInAs(other, TOKEN, COLLEAGUE);
    expect(colleague.res.status).toBe(303);
    expect(colleague.session).not.toBe("");
    const typo = await signInAs(app, WRONG, COLLEAGUE);
    expect(typo.res.status).toBe(401);
    // The IPv4 form of an IPv4-mapped IPv6 socket address is the same client.
    expect((await signInAs(app, TOKEN, `::ffff:${GUESSER}`)).res.status).toBe(429);
  });

  it("a right token does not count as a failure", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock() });
    const app = appWithTokens(runtime, [TOKEN]);
    for (let i = 0; i < 9; i++) expect((await signInAs(app, WRONG, GUESSER)).res.status).toBe(401);
    for (let i = 0; i < 3; i++) expect((await signInAs(app, TOKEN, GUESSER)).res.status).toBe(303);
    // The 10th failure is still answered; the next attempt is not.
    expect((await signInAs(app, WRONG, GUESSER)).res.status).toBe(401);
    expect((await signInAs(app, TOKEN, GUESSER)).res.status).toBe(429);
  });

  it("a burst of concurrent guesses gets no more than 10 tokens checked", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock() });
    const app = appWithTokens(runtime, [TOKEN]);
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => signInAs(app, WRONG, GUESSER)),
    );
    const statuses = answers.map((a) => a.res.status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect((await signInAs(app, TOKEN, GUESSER)).res.status).toBe(429);
  });

  it("the tried token is stored nowhere", async () => {
    const runtime = await openTestRuntime(h, { clock: new ManualClock() });
    const app = appWithTokens(runtime, [TOKEN]);
    for (let i = 0; i < 11; i++) await signInAs(app, WRONG, GUESSER);
    const rows = await sql`select * from tm_ui_sign_in_failures`.execute(runtime.db.kysely);
    expect(rows.rows).toEqual([expect.objectContaining({ client: GUESSER, failures: 10 })]);
    expect(JSON.stringify(rows.rows)).not.toContain(WRONG);
  });
});
