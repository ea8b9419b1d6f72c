import type { Kysely } from "kysely";
import type { BooksTables } from "../tables.ts";

/** The latest digest mailed to a job. */
export interface LastDigest {
  job_name: string;
  run_id: string;
  sent_at: string;
  books: number;
}

/** Which volumes were mailed to which job: Select never offers them again. */
export class MailHistoryRepo {
  constructor(private readonly db: Kysely<BooksTables>) {}

  /** Records one sent digest (re-recording a volume keeps the first send). */
  async record(
    jobName: string,
    volumeIds: readonly string[],
    sent: { runId: string; messageId: string | null; sentAt: string },
  ): Promise<void> {
    if (volumeIds.length === 0) return;
    await this.db
      .insertInto("books.mail_history")
      .values(
        volumeIds.map((volume_id) => ({
          job_name: jobName,
          volume_id,
          run_id: sent.runId,
          message_id: sent.messageId,
          sent_at: sent.sentAt,
        })),
      )
      .onConflict((oc) => oc.columns(["job_name", "volume_id"]).doNothing())
      .execute();
  }

  /** Forgets everything mailed to the job; returns how many records went. */
  async resetByJob(jobName: string): Promise<number> {
    const res = await this.db
      .deleteFrom("books.mail_history")
      .where("job_name", "=", jobName)
      .executeTakeFirst();
    return Number(res.numDeletedRows);
  }

  /** How many volumes were mailed to the job. */
  async countForJob(jobName: string): Promise<number> {
    const row = await this.db
      .selectFrom("books.mail_history")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("job_name", "=", jobName)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  /** The latest digest mailed to each job (when, which run, how many books), by job name. */
  async latestDigests(): Promise<LastDigest[]> {
    const rows = await this.db
      .selectFrom("books.mail_history")
      .select(["job_name", "run_id", (eb) => eb.fn.max("sent_at").as("sent_at")])
      .select((eb) => eb.fn.countAll<number | string>().as("books"))
      .groupBy(["job_name", "run_id"])
      .execute();
    const latest = new Map<string, (typeof rows)[number]>();
    for (const r of rows) {
      const seen = latest.get(r.job_name);
      if (!seen || r.sent_at > seen.sent_at) latest.set(r.job_name, r);
    }
    return [...latest.values()]
      .sort((a, b) => a.job_name.localeCompare(b.job_name))
      .map((r) => ({
        job_name: r.job_name,
        run_id: r.run_id,
        sent_at: r.sent_at,
        books: Number(r.books),
      }));
  }
}
