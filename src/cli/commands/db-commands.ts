import type { Command } from "commander";
import { formatTable } from "../../engine/output/format-table.ts";
import type { CliSession } from "../session.ts";

/** `tidemark db migrate | status`. */
export function registerDbCommands(program: Command, session: CliSession): void {
  const db = program.command("db").description("database schema");

  db.command("migrate")
    .description("apply pending migrations of the engine and every pipeline")
    .action(async () => {
      const [{ openDatabase }, { migrateToLatest }] = await Promise.all([
        import("../../infra/db/open-database.ts"),
        import("../../infra/db/migrator.ts"),
      ]);
      const config = await session.config();
      const database = await openDatabase(config.database);
      try {
        const results = await migrateToLatest(database, session.registry.migrationScopes());
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
      const [{ openDatabase }, { migrationStatus }] = await Promise.all([
        import("../../infra/db/open-database.ts"),
        import("../../infra/db/migrator.ts"),
      ]);
      const config = await session.config();
      const database = await openDatabase(config.database);
      try {
        const states = await migrationStatus(database, session.registry.migrationScopes());
        if (opts.json)
          return session.printJson({ database: database.description, migrations: states });
        session.print(`Database: ${database.description}`);
        session.print(
          formatTable(
            ["SCOPE", "MIGRATION", "APPLIED AT"],
            states.map((s) => [s.scope, s.name, s.executedAt ?? "pending"]),
          ),
        );
        const pending = states.filter((s) => !s.executedAt).length;
        session.print(pending ? `${pending} pending: run tidemark db migrate` : "Up to date.");
      } finally {
        await database.close();
      }
    });
}
