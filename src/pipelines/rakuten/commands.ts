import { type CommandGroupSpec, type CommandSpec, UsageError } from "tidemark";
import { similarCommand } from "./commands/similar.ts";

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
