import { resolvePipelineSettings } from "../../../src/infra/config/pipeline-settings.ts";
import { type BooksSettings, booksSettings } from "../../../src/pipelines/books/settings.ts";

/**
 * `pipelines.books` validated with the books settings spec and the environment's overrides, as
 * the configuration loader validates it (what the registry hands the pipeline as its settings).
 */
export function booksSettingsFrom(
  section: Record<string, unknown> | undefined,
  env: NodeJS.ProcessEnv,
  file?: string,
): BooksSettings {
  return resolvePipelineSettings("books", booksSettings, section, env, { file, dataDir: "." });
}
