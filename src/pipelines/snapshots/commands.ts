const json = { flags: "--json", description: "print as JSON" } as const;

/**
 * `tidemark snapshots run | status | read | gc | supplier add`; actions load their
 * implementation lazily.
 */
export const snapshotsCommands: readonly CommandSpec[] = [
  {
    path: ["snapshots", "run"],
    description:
      "ingest a supplier's newest stable inbox file (exit 0 PASS/no input, 1 FAIL, 2 usage/config, 3 locked)",
    args: [{ name: "supplier", optional: true }],
    options: [
      {
        flags: "--all",
        description: "every supplier with a config file or an inbox folder, one after another",
      },
      {
        flags: "--dry-run",
        description: "report what a run would do (recovery, inbox, the file read); write nothing",
      },
      { flags: "--json", description: "print the results as JSON" },
    ],
    async action({ args, options }, services) {
      const { runCommand } = await import("./commands/run-command.ts");
      await runCommand(services, args.supplier as string | undefined, options);
    },
  },
  {
    path: ["snapshots", "status"],
    description: "state age, last run, consecutive FAILs and identical-SHA streak per supplier",
    args: [{ name: "supplier", optional: true }],
    options: [json],
    async action({ args, options }, services) {
      const { statusCommand } = await import("./commands/status-command.ts");
      await statusCommand(services, args.supplier as string | undefined, options);
    },
  },
  {
    path: ["snapshots", "read"],
    description: "stream the supplier's published facts (state/current) as NDJSON to stdout",
    args: [{ name: "supplier" }],
    async action({ args }, services) {
      const { readCommand } = await import("./commands/read-command.ts");
      await readCommand(services, String(args.supplier));
    },
  },
  {
    path: ["snapshots", "gc"],
    description:
      "apply retention and delete what killed runs left (work dirs, unfinished uploads); never the active state, recent states or accepted runs",
    options: [
      { flags: "--dry-run", description: "list what would be deleted, with sizes" },
      { flags: "--supplier <name>", description: "only this supplier" },
      { flags: "--json", description: "print the plan as JSON" },
    ],
    async action({ options }, services) {
      const { gcCommand } = await import("./commands/gc-command.ts");
      await gcCommand(services, options);
    },
  },
  {
    path: ["snapshots", "supplier", "add"],
    description:
      "write a supplier's DQ config (every key shown), create its inbox and its job snapshots.<name>",
    args: [{ name: "name" }],
    options: [
      {
        flags: "--dq-min-fact-count <n>",
        description: "fewer good rows than this FAIL the run (default 1)",
      },
      {
        flags: "--dq-max-bad-ratio <r>",
        description: "a bad-row ratio above this (0 to 1) FAILs the run (default 0.1)",
      },
      {
        flags: "--dq-allow-empty-snapshot",
        description: "a file without rows publishes an empty state (default: it FAILs)",
      },
      {
        flags: "--schedule <cron>",
        description: "run the job on this cron schedule (default: none)",
      },
      { flags: "--timezone <tz>", description: "time zone of the schedule (default UTC)" },
      { flags: "--force", description: "overwrite an existing config file" },
    ],
    async action({ args, options }, services) {
      const { supplierAddCommand } = await import("./commands/supplier-add-command.ts");
      await supplierAddCommand(services, String(args.name), options);
    },
  },
];

import type { CommandSpec } from "tidemark";
