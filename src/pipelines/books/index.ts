import { defineJobType, definePipeline } from "../../engine/registry/pipeline-definition.ts";
import { registerBooksCli } from "./cli/books-cli.ts";
import { booksRunParams } from "./params.ts";

/** `books.run`: Collect (Google Books, resumable cursor) → Upsert → Select → Mail. */
export const booksRunJobType = defineJobType({
  name: "books.run",
  description: "Google Books → new-book digest by mail (resumable paging cursor, daily quota)",
  params: booksRunParams,
  async run(ctx, params) {
    const { runBooksJob } = await import("./jobs/run-books-job.ts");
    return runBooksJob(ctx, params);
  },
});

/** The books pipeline (seed 001). */
export const booksPipeline = definePipeline({
  name: "books",
  description: "Google Books collection with a persistent cursor, mailed as a book digest",
  jobTypes: [booksRunJobType],
  migrations: async () => ({ "0001-books": await import("./migrations/0001-books.ts") }),
  cli: registerBooksCli,
  async demo(ctx) {
    const { runBooksDemo } = await import("./demo/run-demo.ts");
    await runBooksDemo(ctx);
  },
});
