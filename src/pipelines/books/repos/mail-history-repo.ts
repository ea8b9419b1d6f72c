import type { Kysely } from "kysely";
import type { BooksTables } from "../tables.ts";

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
}
