import { resolvePipelineSettings } from "../../../src/infra/config/pipeline-settings.ts";
import { type RakutenSettings, rakutenSettings } from "../../../src/pipelines/rakuten/settings.ts";

/**
 * `pipelines.rakuten` validated as the registry does when it loads a configuration (the
 * environment's overrides, the schema, the resolver): what a job gets as `ctx.settings`.
 */
export function rakutenSettingsOf(
  section: Record<string, unknown> | undefined,
  env: NodeJS.ProcessEnv = {},
  file: string | undefined = undefined,
): RakutenSettings {
  return resolvePipelineSettings("rakuten", rakutenSettings, section, env, {
    file,
    dataDir: ".",
  });
}
