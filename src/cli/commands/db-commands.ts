import { existsSync } from "node:fs";
import type { Command } from "commander";
import type { MigrationState } from "../../infra/db/migrator.ts";
import type { CliSession } from "../session.ts";
import { registerDbGcCommand } from "./db-gc-command.ts";

/** `tidemark db migrate | status | gc`. */
export function registerDbCommands(program: Command, session: CliSession): void {
  const db = program.command("db").description("database schema");

  db.command("migrate")
    .description("apply pending migrations of the engine, the server and every pipeline")
    .action(async () => {
      const [{ openDatabase }, { migrateToLatest }] = await Promise.all([
        import("../../infra/db/open-database.ts"),
        import("../../infra/db/migrator.ts"),
      ]);
      const config = await session.config();
      const database = await openDatabase(config.database);
      try {
        const results = await migrateToLatest(database, session.migrationScopes());
        const applied = results.flatMap((r) => r.applied.map((m) => `${r.scope}/${m}`));
        session.print(`Database: ${database.description}`);
        session.print(
          applied.length ? `Applied ${applied.length} migration(s):` : "Already up to date.",
        );
        for (const name of applied) session.print(`  ${name}`);
      } finally {
        await database.close();
      }
    });

  db.command("status")
    .description("list every migration and whether it has been applied")
    .option("--json", "machine-readable output")
    .action(async (opts: { json?: boolean }) => {
      const config = await session.config();
      const target = config.database;
      // A status query must not create the SQLite file (and its folder) it reports on.
      if (target.dialect === "sqlite" && !existsSync(target.path)) {
        const { allPending } = await import("../../infra/db/migrator.ts");
        const states = await allPending(session.migrationScopes());
        if (opts.json) return session.printJson({ database: target.path, migrations: states });
        session.print(`Database: ${target.path} (does not exist yet)`);
        return printStates(session, states);
      }
      const [{ openDatabase }, { migrationStatus }] = await Promise.all([
        import("../../infra/db/open-database.ts"),
        import("../../infra/db/migrator.ts"),
      ]);
      const database = await openDatabase(target);
      try {
        const states = await migrationStatus(database, session.migrationScopes());
        if (opts.json)
          return session.printJson({ database: database.description, migrations: states });
        session.print(`Database: ${database.description}`);
        printStates(session, states);
      } finally {
        await database.close();
      }
    });

  registerDbGcCommand(db, session);
}

/** The migrations table and what to do next. */
function printStates(session: CliSession, states: MigrationState[]): void {
  session.printTable(
    ["SCOPE", "MIGRATION", "APPLIED AT"],
    states.map((s) => [s.scope, s.name, s.executedAt ?? "pending"]),
  );
  const pending = states.filter((s) => !s.executedAt).length;
  session.print(pending ? `${pending} pending: run tidemark db migrate` : "Up to date.");
}
