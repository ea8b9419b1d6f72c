import { readFile } from "node:fs/promises";
import path from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../engine/errors.ts";
import type { CliSession } from "../session.ts";

/** `tidemark hash [FILE|-]`: the content hash of a JSON document. */
export function registerHashCommand(program: Command, session: CliSession): void {
  program
    .command("hash [file]")
    .description(
      "print the SHA-256 content hash of a JSON document (canonical form: sorted keys, no spaces, as Python's json.dumps)",
    )
    .action(async (file?: string) => {
      const fromStdin = file === undefined || file === "-";
      const where = fromStdin ? "stdin" : file;
      let bytes: Buffer;
      try {
        bytes = fromStdin
          ? await session.io.readStdin()
          : await readFile(path.resolve(session.io.cwd, file));
      } catch (err) {
        throw new UsageError(`${where}: cannot read: ${(err as Error).message}`);
      }
      const { contentHashOfJsonText } = await import("../../engine/hashing/index.ts");
      try {
        session.print(contentHashOfJsonText(bytes.toString("utf8").replace(/^\uFEFF/, "")));
      } catch (err) {
        throw new UsageError(`${where}: ${(err as Error).message}`);
      }
    });
}
