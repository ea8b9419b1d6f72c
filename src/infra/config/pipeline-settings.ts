import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { applyEnvOverrides, type EnvOverride, type EnvSources } from "./env-overrides.ts";
import { formatZodIssues } from "./format-zod-issues.ts";

/** What a settings resolver may use besides the parsed values. */
export interface SettingsBase {
  /** The configuration file, or undefined on defaults. */
  readonly file: string | undefined;
  /** Absolute data directory (relative settings paths resolve under it). */
  readonly dataDir: string;
}

/**
 * How one pipeline's `pipelines.<name>` section is validated: a zod schema, the environment
 * variables that override its keys (paths relative to the section), and an optional resolver
 * turning parsed values into what jobs use (absolute paths, derived flags).
 */
export interface PipelineSettingsSpec<T = unknown> {
  // biome-ignore lint/suspicious/noExplicitAny: each pipeline's schema has its own output type; resolve() narrows it.
  readonly schema: z.ZodType<any>;
  readonly env?: readonly EnvOverride[];
  // biome-ignore lint/suspicious/noExplicitAny: receives the schema's output (see schema).
  resolve?(parsed: any, base: SettingsBase): T;
}

/**
 * Validates one pipeline's section: environment overrides (skipped when the section says
 * `use_env: false`), then the schema, then the resolver. Errors name the file or the variable.
 */
export function resolvePipelineSettings<T>(
  name: string,
  spec: PipelineSettingsSpec<T>,
  raw: unknown,
  env: NodeJS.ProcessEnv,
  base: SettingsBase,
): T {
  const where = base.file ?? "configuration";
  if (raw !== undefined && (typeof raw !== "object" || raw === null || Array.isArray(raw))) {
    throw new ConfigError(`${where}: pipelines.${name}: expected a mapping of settings`);
  }
  const section = (raw ?? {}) as Record<string, unknown>;
  const sources: EnvSources = new Map();
  const table = (spec.env ?? []).map((o) => ({ ...o, path: ["pipelines", name, ...o.path] }));
  const input =
    section.use_env === false
      ? { pipelines: { [name]: section } }
      : applyEnvOverrides({ pipelines: { [name]: section } }, env, table, sources);
  const wrapper = z.object({ pipelines: z.object({ [name]: spec.schema }) });
  // A new schema each call, parsed once: no compiled fast path (see loadConfig).
  const parsed = wrapper.safeParse(input, { jitless: true });
  if (!parsed.success) {
    throw new ConfigError(formatZodIssues(where, parsed.error, input, sources, wrapper));
  }
  const value = (parsed.data.pipelines as Record<string, unknown>)[name];
  return spec.resolve ? spec.resolve(value, base) : (value as T);
}

/**
 * Validates `pipelines:` against every registered pipeline: an unknown pipeline name is an
 * error, and each registered pipeline's section (present or not) is resolved once.
 */
export function resolveAllPipelineSettings(
  raw: Record<string, unknown>,
  specs: ReadonlyMap<string, PipelineSettingsSpec | undefined>,
  env: NodeJS.ProcessEnv,
  base: SettingsBase,
): Record<string, unknown> {
  const where = base.file ?? "configuration";
  for (const name of Object.keys(raw)) {
    if (!specs.has(name)) {
      const known = [...specs.keys()].sort().join(", ") || "(none)";
      throw new ConfigError(`${where}: pipelines.${name}: unknown pipeline; known: ${known}`);
    }
  }
  const out: Record<string, unknown> = {};
  for (const [name, spec] of specs) {
    if (spec) {
      out[name] = resolvePipelineSettings(name, spec, raw[name], env, base);
    } else if (raw[name] !== undefined && Object.keys(raw[name] as object).length > 0) {
      throw new ConfigError(`${where}: pipelines.${name}: this pipeline has no settings`);
    }
  }
  return out;
}
