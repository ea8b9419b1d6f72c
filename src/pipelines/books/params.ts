import { z } from "zod";

/** Google Books' hard cap on `maxResults`: the most a single page can ask for. */
export const GOOGLE_BOOKS_PAGE_MAX = 40;

/** Environment variable names: the key itself never goes into the database. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** The shape of a Google API key, to catch a key pasted where its variable name belongs. */
const LOOKS_LIKE_GOOGLE_KEY = /^AIza[0-9A-Za-z_-]{20,}$/;

/** Trims and collapses runs of whitespace, exactly as the query-set hash does. */
export function normalizeQuery(query: string): string {
  return query.trim().replace(/\s+/g, " ");
}

const query = z
  .string()
  .max(500)
  .refine((q) => normalizeQuery(q) !== "", { message: "must not be blank" });

const googleBooksOptions = z.strictObject({
  /** ISO 639-1 code (`ja`, `en`, `pt-BR` style regional codes accepted). */
  langRestrict: z
    .string()
    .regex(/^[a-z]{2,3}(-[A-Za-z]{2,4})?$/, "must be a language code like ja or en")
    .optional(),
  printType: z.enum(["all", "books", "magazines"]).optional(),
  orderBy: z.enum(["relevance", "newest"]).optional(),
  filter: z.enum(["partial", "full", "free-ebooks", "paid-ebooks", "ebooks"]).optional(),
  projection: z.enum(["full", "lite"]).optional(),
});

const email = z.email();

/** Params of a `books.run` job (the YAML example of docs/pipelines/books.md is accepted as written). */
export const booksRunParams = z
  .strictObject({
    /** Google Books `q` strings; together they form the query set of one cursor. */
    queries: z
      .array(query)
      .min(1)
      .max(20)
      .describe("Google Books q strings (1-20); together they share one paging cursor"),
    /** Most items collected per run over all queries (each page asks for at most 40). */
    max_per_run: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(40)
      .describe("most items collected per run over all queries"),
    google_books: googleBooksOptions
      .default({})
      .describe(
        "Google Books request options (langRestrict, printType, orderBy, filter, projection)",
      ),
    /** Name of the environment variable holding the API key (optional: keyless otherwise). */
    api_key_env: z
      .string()
      .regex(ENV_NAME, "must be an environment variable name like GOOGLE_BOOKS_API_KEY")
      .refine((v) => !LOOKS_LIKE_GOOGLE_KEY.test(v), {
        message:
          "looks like an API key itself; put the key in an environment variable and give its name",
        // Never echo it back: a key pasted here is still a key.
        params: { secret: true },
      })
      .optional()
      .describe("name of the environment variable holding the API key (keyless when absent)"),
    select: z
      .strictObject({
        /** Books per digest. */
        count: z.number().int().min(1).max(50).default(5).describe("books per digest"),
        /** `newest`: with a description first, then latest published; `rating`: best rated. */
        order: z
          .enum(["newest", "rating"])
          .default("newest")
          .describe("newest: with a description first, then latest published; rating: best rated"),
      })
      .default({ count: 5, order: "newest" }),
    mail: z.strictObject({
      to: z.union([email, z.array(email).min(1).max(50)]).describe("one address or a list"),
      from: email.describe("sender address"),
      subject: z.string().trim().min(1).max(200).describe("subject of the digest mail"),
    }),
  })
  .superRefine((p, ctx) => {
    const seen = new Map<string, number>();
    p.queries.forEach((q, i) => {
      const key = normalizeQuery(q);
      const first = seen.get(key);
      if (first !== undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["queries", i],
          message: `duplicates queries[${first}] once whitespace is normalised`,
        });
      } else {
        seen.set(key, i);
      }
    });
    // The page budget is split evenly over the queries; each needs at least one item per page.
    if (p.max_per_run < p.queries.length) {
      ctx.addIssue({
        code: "custom",
        path: ["max_per_run"],
        message: `must be at least the number of queries (${p.queries.length})`,
      });
    }
  });

/** Validated `books.run` params. */
export type BooksRunParams = z.output<typeof booksRunParams>;

/** A ready `books.run` job: two queries, a digest of five books mailed once a run. */
export const booksRunExample = {
  queries: ["intitle:consultant", "subject:management"],
  max_per_run: 40,
  google_books: { langRestrict: "en", orderBy: "newest" },
  select: { count: 5, order: "newest" },
  mail: { to: "me@example.com", from: "digest@example.com", subject: "New books" },
};
