import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { UsageError } from "../engine/errors.ts";
import { nameForms, pipelineNameProblem } from "./pipeline-name.ts";
import { renderPath, renderTemplate } from "./render-template.ts";
import { findTemplateFolder, listTemplateFiles } from "./template-folder.ts";
import { tidemarkDependency } from "./tidemark-dependency.ts";

/** What `tidemark new pipeline` was asked for. */
export interface ScaffoldRequest {
  name: string;
  /** The new folder (default `<cwd>/<name>`). */
  dir?: string;
  /** The `tidemark` dependency of the new package (default: see tidemarkDependency). */
  tidemark?: string;
  cwd: string;
  /** Names a new pipeline may not take: the registered pipelines and the CLI's commands. */
  taken: readonly string[];
  /** Tidemark's own version, for the default dependency range. */
  version: string;
  /** The template folder (default: the one shipped with Tidemark). */
  templateFolder?: string;
}

/** What was written. */
export interface ScaffoldResult {
  folder: string;
  files: string[];
  tidemarkSpec: string;
  /** Where the spec came from: `--tidemark`, the enclosing project, or this version's range. */
  tidemarkFrom: "given" | "project" | "version";
}

/** Throws a UsageError unless `folder` is absent or an empty folder. */
function checkTarget(folder: string): void {
  if (!existsSync(folder)) return;
  if (!statSync(folder).isDirectory()) throw new UsageError(`${folder} is a file, not a folder`);
  if (readdirSync(folder).length > 0) {
    throw new UsageError(`${folder} is not empty; give an empty or new folder with --dir`);
  }
}

/**
 * Writes a new pipeline package from the template. Every check (the name, the target folder)
 * runs before the first file is written; the files are rendered in memory first.
 */
export function scaffoldPipeline(req: ScaffoldRequest): ScaffoldResult {
  const problem = pipelineNameProblem(req.name, req.taken);
  if (problem) throw new UsageError(problem);
  const folder = path.resolve(req.cwd, req.dir ?? req.name);
  checkTarget(folder);
  const forms = nameForms(req.name);
  const dependency = tidemarkDependency(req.tidemark, req.cwd, folder, req.version);
  const tidemarkSpec = dependency.spec;
  const root = req.templateFolder ?? findTemplateFolder();
  const rendered = listTemplateFiles(root).map((rel) => ({
    rel: renderPath(rel, forms),
    text: renderTemplate(readFileSync(path.join(root, rel), "utf8"), forms, {
      tidemarkSpec,
      tidemarkVersion: req.version,
    }),
  }));
  for (const file of rendered) {
    const out = path.join(folder, file.rel);
    mkdirSync(path.dirname(out), { recursive: true });
    writeFileSync(out, file.text, { flag: "wx" });
  }
  return { folder, files: rendered.map((f) => f.rel), tidemarkSpec, tidemarkFrom: dependency.from };
}
