import { type CommandGroupSpec, type CommandSpec, UsageError } from "tidemark";

/** `tidemark rakuten`: the group's help line. */
export const rakutenCommandGroups: readonly CommandGroupSpec[] = [
  {
    path: ["rakuten"],
    description: "Rakuten Ichiba ETL: ledger status, re-apply, raw history, similar items",
  },
];

/** Parses `--limit`; a usage error (exit 2) unless a positive integer. */
function limitOption(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  // Digits only, as `tidemark run --limit` takes: Number() alone accepts "0x10", "1e3", " 3".
  if (!/^\d+$/.test(String(value)) || !Number.isSafeInteger(n) || n < 1) {
    throw new UsageError(`--limit must be a positive integer, not ${JSON.stringify(value)}`);
  }
  return n;
}

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
    const { similarItemsCommand } = await import("./commands/similar-command.ts");
    await similarItemsCommand(services, String(args.itemCode), { k, json: options.json === true });
  },
};

/**
 * `tidemark rakuten status | reapply <entity> | raw <entity> <source_id> | similar <itemCode>`.
 * Actions load their implementation lazily.
 */
export const rakutenCommands: readonly CommandSpec[] = [
  {
    path: ["rakuten", "status"],
    description:
      "per entity: ledger rows, rows saved today (UTC), rows pending re-apply, last save",
    options: [{ flags: "--json", description: "print JSON" }],
    async action({ options }, services) {
      const { statusCommand } = await import("./commands/status-command.ts");
      await statusCommand(services, { json: options.json === true });
    },
  },
  {
    path: ["rakuten", "reapply"],
    description:
      "re-apply every staging row of an entity not applied by its current apply version, from the raw store (no API call)",
    args: [{ name: "entity", description: "ranking, item, genre or tag" }],
    options: [
      { flags: "--dry-run", description: "count what would be re-applied; write nothing" },
      { flags: "--limit <n>", description: "re-apply at most n rows" },
      { flags: "--json", description: "print the run report as JSON" },
    ],
    async action({ args, options }, services) {
      const { entityArg } = await import("./commands/entity-arg.ts");
      const entity = entityArg(args.entity);
      const limit = limitOption(options.limit);
      const { reapplyCommand } = await import("./commands/reapply-command.ts");
      await reapplyCommand(services, entity, {
        dryRun: options.dryRun === true,
        limit,
        json: options.json === true,
      });
    },
  },
  {
    path: ["rakuten", "raw"],
    description: "list a target's raw history and print one stored version (default: the current)",
    args: [
      { name: "entity", description: "ranking, item, genre or tag" },
      { name: "source_id", description: "item code, genre id or tag id" },
    ],
    options: [
      {
        flags: "--hash <hash>",
        description: "the version to print (a unique hash prefix will do)",
      },
      { flags: "--json", description: "print JSON" },
    ],
    async action({ args, options }, services) {
      const { entityArg } = await import("./commands/entity-arg.ts");
      const entity = entityArg(args.entity);
      const { rawCommand } = await import("./commands/raw-command.ts");
      await rawCommand(services, entity, String(args.source_id), {
        hash: typeof options.hash === "string" ? options.hash : undefined,
        json: options.json === true,
      });
    },
  },
  similarCommand,
  {
    path: ["rakuten", "items"],
    description: "stored items, newest first: the item codes rakuten similar and raw take",
    options: [
      { flags: "--limit <n>", description: "items to show (default 20)" },
      { flags: "--json", description: "print JSON" },
    ],
    async action({ options }, services) {
      const { itemsCommand } = await import("./commands/items-command.ts");
      await itemsCommand(services, options);
    },
  },
];
