/**
 * SQL the adapter runs on pg-boss's own tables (schema v24, pg-boss 10.x) for what pg-boss 10
 * has no call for (renewing a hold, releasing a message, exact singleton dedupe, counts) or
 * does more slowly (a lean fetch).
 * `schema` is checked by the config (letters, digits, `_`), as pg-boss itself requires.
 */
export function pgBossSql(schema: string) {
  const job = `${schema}.job`;
  const state = (s: string) => `'${s}'::${schema}.job_state`;
  return {
    /**
     * pg-boss 10's fetch (plans.fetchNextJob) for standard-policy queues, returning only what
     * a delivery needs: includeMetadata would parse a dozen more columns per job.
     */
    fetch: `WITH next AS MATERIALIZED (
        SELECT id FROM ${job}
        WHERE name = $1 AND state < 'active' AND start_after < now()
        ORDER BY priority DESC, created_on, id
        LIMIT $2
        FOR UPDATE SKIP LOCKED
      )
      UPDATE ${job} j SET
        state = 'active',
        started_on = now(),
        retry_count = CASE WHEN started_on IS NOT NULL THEN retry_count + 1 ELSE retry_count END
      FROM next
      WHERE j.name = $1 AND j.id = next.id
      RETURNING j.id, j.data, j.retry_count AS "retryCount", j.retry_limit AS "retryLimit",
        j.retry_delay AS "retryDelay", j.retry_backoff AS "retryBackoff",
        EXTRACT(epoch FROM j.expire_in)::float8 AS "expireInSeconds",
        (EXTRACT(epoch FROM j.created_on) * 1000)::float8 AS "createdMs"`,
    /** Renews holds: pg-boss expires an active job when started_on + expire_in has passed. */
    extend: `UPDATE ${job} SET started_on = now()
      WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active' RETURNING id`,
    /**
     * Gives jobs back, deliverable now. With started_on cleared, pg-boss's fetch does not count
     * the next delivery as a retry, so a released delivery uses up no attempt.
     */
    release: `UPDATE ${job} SET
        state = CASE WHEN retry_count > 0 THEN ${state("retry")} ELSE ${state("created")} END,
        started_on = NULL, start_after = now()
      WHERE name = $1 AND id = ANY($2::uuid[]) AND state = 'active'`,
    /**
     * A permanent failure: dead at once, as pg-boss's fail() records it (`output` = {message}),
     * its retry_limit left as sent so that a retry of it gets the full set of attempts.
     */
    failPermanently: `UPDATE ${job} SET state = ${state("failed")}, completed_on = now(),
        output = jsonb_build_object('message', $3::text)
      WHERE name = $1 AND id = $2 AND state = 'active'`,
    /** Dead-lettered ids of a queue, oldest death first. */
    deadIds: `SELECT id FROM ${job} WHERE name = $1 AND state = 'failed' ORDER BY completed_on, id`,
    /** The singleton key of a dead-lettered job (to lock before bringing it back). */
    deadKey: `SELECT singleton_key FROM ${job} WHERE name = $1 AND id = $2 AND state = 'failed'`,
    /**
     * Brings a dead job back: deliverable now, as if never started (started_on NULL, so the
     * next fetch counts no retry), unless its singleton key has a live job meanwhile.
     */
    retryDead: `UPDATE ${job} j SET state = ${state("created")}, retry_count = 0, started_on = NULL,
        completed_on = NULL, start_after = now()
      WHERE j.name = $1 AND j.id = $2 AND j.state = 'failed'
        AND (j.singleton_key IS NULL OR NOT EXISTS (SELECT 1 FROM ${job} l
          WHERE l.name = $1 AND l.singleton_key = j.singleton_key AND l.state < 'completed'))
      RETURNING j.id`,
    /** Serialises senders of the same singleton keys until their transaction ends. */
    lockKeys: `SELECT pg_advisory_xact_lock(hashtextextended($1 || k, 0)) FROM unnest($2::text[]) AS k`,
    /** Keys that already have a queued (created/retry) or active job. */
    liveKeys: `SELECT DISTINCT singleton_key FROM ${job}
      WHERE name = $1 AND singleton_key = ANY($2::text[]) AND state < 'completed'`,
    stats: `SELECT q.name AS queue,
        count(j.id) FILTER (WHERE j.state < 'active') AS queued,
        count(j.id) FILTER (WHERE j.state = 'active') AS active,
        count(j.id) FILTER (WHERE j.state = 'failed') AS dead,
        COALESCE(EXTRACT(EPOCH FROM now() - min(j.start_after)
          FILTER (WHERE j.state < 'active' AND j.start_after <= now())), 0)::float8 AS oldest
      FROM ${schema}.queue q LEFT JOIN ${job} j ON j.name = q.name
      WHERE q.name NOT LIKE '\\_\\_pgboss\\_\\_%'
      GROUP BY q.name ORDER BY q.name`,
    /** Not-completed jobs of a queue in the given states, newest first. */
    messages: `SELECT id, name, data, state, retry_count AS "retryCount", started_on AS "startedOn",
        created_on AS "createdOn", output, start_after AS "startAfter"
      FROM ${job} WHERE name = $1 AND state::text = ANY($2::text[])
      ORDER BY created_on DESC, id DESC LIMIT $3`,
    /** Deletes waiting or dead jobs (never an active one). */
    deleteMessages: `DELETE FROM ${job}
      WHERE name = $1 AND id = ANY($2::uuid[]) AND state IN ('created', 'retry', 'failed', 'cancelled')
      RETURNING id`,
    deadLetters: `SELECT id, name, data, state, retry_count AS "retryCount", started_on AS "startedOn",
        created_on AS "createdOn", output
      FROM ${job} WHERE name = $1 AND state = 'failed'
      ORDER BY completed_on DESC LIMIT $2`,
  };
}
