import { existsSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../engine/errors.ts";
import { STARTER_CONFIG } from "../../infra/config/starter-config.ts";
import type { CliSession } from "../session.ts";

/** `tidemark init`: writes a commented starter tidemark.yaml; never overwrites one. */
export function registerInitCommand(program: Command, session: CliSession): void {
  program
    .command("init")
    .description("write a commented starter tidemark.yaml (refuses to overwrite)")
    .action(() => {
      const target = path.resolve(session.io.cwd, program.opts().config ?? "tidemark.yaml");
      if (existsSync(target)) {
        throw new UsageError(`${target} already exists; not overwriting it`);
      }
      writeFileSync(target, STARTER_CONFIG, { flag: "wx" });
      session.print(`Wrote ${target}`);
      session.print("Next: tidemark db migrate, then tidemark job add <name> --type <type>");
    });
}
