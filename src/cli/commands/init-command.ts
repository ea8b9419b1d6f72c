import { existsSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../engine/errors.ts";
import { STARTER_CONFIG } from "../../infra/config/starter-config.ts";
import type { CliSession } from "../session.ts";
import { writeUserFile } from "../write-user-file.ts";

/** `tidemark init`: writes a commented starter tidemark.yaml; never overwrites one. */
export function registerInitCommand(program: Command, session: CliSession): void {
  program
    .command("init")
    .description("write a commented starter tidemark.yaml (refuses to overwrite)")
    .action(async () => {
      // Loaded here, not at the top: --help must not load the config loader (yaml, zod).
      const { CONFIG_FILE_NAMES } = await import("../../infra/config/load-config.ts");
      const named = program.opts().config as string | undefined;
      const target = path.resolve(session.io.cwd, named ?? "tidemark.yaml");
      // Without --config, a tidemark.yml already there is the config: a new tidemark.yaml
      // beside it would silently take its place.
      const existing = named
        ? [target]
        : CONFIG_FILE_NAMES.map((n) => path.resolve(session.io.cwd, n));
      for (const file of existing) {
        if (existsSync(file)) throw new UsageError(`${file} already exists; not overwriting it`);
      }
      writeUserFile(target, STARTER_CONFIG, { exclusive: true });
      session.print(`Wrote ${target}`);
      session.print("Next: tidemark db migrate, then tidemark job add <name> --type <type>");
    });
}
