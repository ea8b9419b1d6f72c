/**
 * The books pipeline: Google Books collection with a persistent paging cursor and a daily
 * quota, upserted, selected and mailed as a digest. This module is the definition only (cheap
 * to import); jobs, commands, the fake and the demo load their implementation on first use.
 */
import { defineJobType, definePipeline, lazyMigrations } from "tidemark";
import { booksCommands } from "./commands.ts";
import { booksRunExample, booksRunParams } from "./params.ts";
import { booksSettings } from "./settings.ts";

/** `books.run`: Collect (Google Books, resumable cursor) → Upsert → Select → Mail. */
export const booksRunJobType = defineJobType({
  name: "books.run",
  description: "Google Books → new-book digest by mail (resumable paging cursor, daily quota)",
  params: booksRunParams,
  example: booksRunExample,
  settings: booksSettings,
  async run(ctx, params) {
    const { runBooksJob } = await import("./jobs/run-books-job.ts");
    return runBooksJob(ctx, params);
  },
});

/** The books pipeline. */
export const booksPipeline = definePipeline({
  name: "books",
  description: "Google Books collection with a persistent cursor, mailed as a book digest",
  jobTypes: [booksRunJobType],
  settings: booksSettings,
  migrations: lazyMigrations({ "0001-books": () => import("./migrations/0001-books.ts") }),
  commandGroups: [
    { path: ["books"], description: "books jobs run from the command line" },
    {
      path: ["job", "cursor"],
      description: "collect cursors (Google Books paging state) of books jobs",
    },
    { path: ["mail"], description: "mail history of digest jobs" },
  ],
  commands: booksCommands,
  panel: { title: "Books", load: async () => (await import("./panel/books-panel.ts")).booksPanel },
  fake: {
    description: "fake Google Books API and an SMTP capture that prints each mail",
    async start(options) {
      const { startBooksFake } = await import("./fake/start-fake.ts");
      return startBooksFake(options);
    },
  },
  async demo(ctx) {
    const { runBooksDemo } = await import("./demo.ts");
    await runBooksDemo(ctx);
  },
});
