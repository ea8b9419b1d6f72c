import type { Command } from "commander";
import { ExitCode, UsageError } from "../../engine/errors.ts";
import type { Queue } from "../../engine/queue/queue.ts";
import { positiveInt } from "../option-parsers.ts";
import type { CliSession } from "../session.ts";

/** Opens the configured queue (embedded or pg-boss) for one command, and closes it. */
async function withQueue<R>(session: CliSession, use: (queue: Queue) => Promise<R>): Promise<R> {
  const runtime = await session.runtime();
  const { openQueue } = await import("../../engine/queue/open-queue.ts");
  const queue = await openQueue(runtime);
  try {
    return await use(queue);
  } finally {
    await queue.close();
  }
}

/**
 * Refuses a queue name this build does not know (exit 2, listing the known ones): the queues
 * of the engine's and every pipeline's handlers, and any queue still holding messages.
 */
async function checkQueueName(session: CliSession, queue: Queue, name: string): Promise<void> {
  const { collectQueueHandlers } = await import("../../engine/workers/queue-workers.ts");
  const handled = collectQueueHandlers(session.registry).map((h) => h.name);
  if (handled.includes(name)) return;
  const holding = (await queue.stats()).map((s) => s.queue);
  if (holding.includes(name)) return;
  const known = [...new Set([...handled, ...holding])].sort();
  throw new UsageError(`unknown queue ${JSON.stringify(name)}; known queues: ${known.join(", ")}`);
}

/** `tidemark queue stats | dead | retry`: inspect the queue and re-drive dead letters. */
export function registerQueueCommands(program: Command, session: CliSession): void {
  const queue = program
    .command("queue")
    .description("the message queue (queue: in tidemark.yaml): depths and dead letters");

  queue
    .command("stats")
    .description("messages waiting, in flight and dead-lettered, per queue")
    .option("--json", "machine-readable output")
    .action(async (opts: { json?: boolean }) => {
      const stats = await withQueue(session, (q) => q.stats());
      if (opts.json) return session.printJson(stats);
      if (stats.length === 0) return session.print("No messages.");
      session.printTable(
        ["QUEUE", "QUEUED", "ACTIVE", "DEAD", "OLDEST WAITING"],
        stats.map((s) => [
          s.queue,
          s.queued,
          s.active,
          s.deadLettered,
          `${Math.round(s.oldestQueuedAgeSeconds)}s`,
        ]),
      );
    });

  queue
    .command("dead <queue>")
    .description("dead-lettered messages of a queue, newest first, with their last error")
    .option("--limit <n>", "how many", positiveInt, 20)
    .option("--json", "machine-readable output (payloads included)")
    .action(async (name: string, opts: { limit: number; json?: boolean }) => {
      const dead = await withQueue(session, async (q) => {
        await checkQueueName(session, q, name);
        return q.deadLetters(name, { limit: opts.limit });
      });
      if (opts.json) return session.printJson(dead);
      if (dead.length === 0) return session.print(`No dead-lettered messages in ${name}.`);
      session.printTable(
        ["ID", "ATTEMPTS", "CREATED", "LAST ERROR"],
        dead.map((m) => [m.id, m.attempts, m.createdAt, m.lastError ?? ""]),
      );
    });

  queue
    .command("retry <queue> [ids...]")
    .description(
      "send dead-lettered messages back for delivery now, with a fresh set of attempts (exit 1 if some id was not dead-lettered)",
    )
    .option("--all", "every dead-lettered message of the queue")
    .action(async (name: string, ids: string[], opts: { all?: boolean }) => {
      if (opts.all ? ids.length > 0 : ids.length === 0) {
        throw new UsageError("give the message ids to retry, or --all (not both)");
      }
      const moved = await withQueue(session, async (q) => {
        await checkQueueName(session, q, name);
        return q.retryDead(name, opts.all ? "all" : ids);
      });
      session.print(`${moved.length} message(s) of ${name} back in the queue.`);
      for (const id of moved) session.print(`  ${id}`);
      const done = new Set(moved);
      const left = ids.filter((id) => !done.has(id));
      for (const id of left) {
        session.print(
          `not retried: ${id} (not a dead-lettered message of ${name}, or its singleton key has a live message)`,
        );
      }
      if (left.length > 0) session.exitCode = ExitCode.jobFailed;
    });
}
