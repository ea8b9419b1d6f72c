import { readFileSync } from "node:fs";
import path from "node:path";
import type { Command } from "commander";
import type { CliSession } from "../session.ts";

/** The folder as the user types it to get there from `cwd`. */
function cdTarget(cwd: string, folder: string): string {
  const rel = path.relative(cwd, folder);
  return rel && !rel.startsWith("..") && !path.isAbsolute(rel) ? rel : folder;
}

/** A value as one shell word: quoted when it holds anything but safe characters. */
function shellWord(value: string): string {
  return /^[\w./:@%+=-]+$/.test(value) ? value : `'${value.replaceAll("'", "'\\''")}'`;
}

/** Tidemark's version, read from the package.json beside the shipped template. */
function ownVersion(templateFolder: string): string {
  const pkg = path.join(templateFolder, "..", "..", "package.json");
  return (JSON.parse(readFileSync(pkg, "utf8")) as { version: string }).version;
}

/**
 * `tidemark new pipeline <name>`: a pipeline package of its own, in the one pipeline shape,
 * ready for `npm install && npm test` (docs/write-a-pipeline.md).
 */
export function registerNewCommands(program: Command, session: CliSession): void {
  const group = program.command("new").description("create something new from a template");
  group
    .command("pipeline <name>")
    .description(
      "scaffold a pipeline package (definition, settings, tables, a cursor job with a ledger, client, fake, demo, panel, tests) in its own folder",
    )
    .option("--dir <folder>", "the new folder (default: ./<name>); must be new or empty")
    .option(
      "--tidemark <spec>",
      "the package's tidemark dependency, a version range or a tarball path (default: the one this project installed, else this version)",
    )
    .action(async (name: string, opts: { dir?: string; tidemark?: string }) => {
      const { scaffoldPipeline } = await import("../../scaffold/scaffold-pipeline.ts");
      const { findTemplateFolder } = await import("../../scaffold/template-folder.ts");
      const templateFolder = findTemplateFolder();
      const taken = [
        ...session.registry.pipelines.map((p) => p.name),
        ...program.commands.map((c) => c.name()),
        "tidemark",
      ];
      const cwd = session.io.cwd;
      const result = scaffoldPipeline({
        name,
        dir: opts.dir,
        tidemark: opts.tidemark,
        cwd,
        taken,
        version: ownVersion(templateFolder),
        templateFolder,
      });
      session.print(`Created pipeline ${name} in ${result.folder} (${result.files.length} files)`);
      session.print(`Its Tidemark dependency: ${result.tidemarkSpec}.`);
      if (result.tidemarkFrom === "version") {
        session.print(
          "No package.json above it installs Tidemark, so npm will look for that version in the registry; to use a tarball, scaffold again with --tidemark <path to tidemark-x.y.z.tgz>.",
        );
      }
      session.print("Next steps:");
      for (const step of [
        `cd ${shellWord(cdTarget(cwd, result.folder))}`,
        "npm install",
        "npm test",
        "npx tidemark -c tidemark.yaml job types",
        `npx tidemark -c tidemark.yaml demo --only ${name}`,
      ]) {
        session.print(`  ${step}`);
      }
      session.print(
        "Then read README.md there: the job, its settings and how to run it on a schedule.",
      );
    });
}
