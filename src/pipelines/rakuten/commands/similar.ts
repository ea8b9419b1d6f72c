import { type CommandSpec, UsageError } from "tidemark";

/** Default and largest number of neighbours `rakuten similar` lists. */
export const SIMILAR_DEFAULT_K = 10;
export const SIMILAR_MAX_K = 1000;

/** Parses `-k`; a usage error (exit 2) unless an integer from 1 to 1000. */
export function parseK(value: unknown): number {
  if (value === undefined) return SIMILAR_DEFAULT_K;
  const n = Number(value);
  if (!/^\d+$/.test(String(value)) || n < 1 || n > SIMILAR_MAX_K) {
    throw new UsageError(
      `-k must be an integer from 1 to ${SIMILAR_MAX_K}, not ${JSON.stringify(value)}`,
    );
  }
  return n;
}

/** `tidemark rakuten similar <itemCode> [-k 10] [--json]` (implementation loaded on use). */
export const similarCommand: CommandSpec = {
  path: ["rakuten", "similar"],
  description:
    "the items nearest to an item by cosine similarity of their stored embeddings (run rakuten.embedding-source and rakuten.embedding first)",
  args: [{ name: "itemCode", description: "item code, e.g. shop:1234" }],
  options: [
    {
      flags: "-k <n>",
      description: `how many items to list (1-${SIMILAR_MAX_K})`,
      default: String(SIMILAR_DEFAULT_K),
    },
    { flags: "--json", description: "print JSON" },
  ],
  async action({ args, options }, services) {
    const k = parseK(options.k);
    const { similarItemsCommand } = await import("./similar-command.ts");
    await similarItemsCommand(services, String(args.itemCode), { k, json: options.json === true });
  },
};
