import { stringify } from "yaml";
import { z } from "zod";
import type { JobType } from "../../engine/registry/pipeline-definition.ts";

/** The part of JSON Schema that zod writes and this page reads. */
export interface JsonSchema {
  type?: string | string[];
  description?: string;
  default?: unknown;
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  minItems?: number;
  maxItems?: number;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/** One param as `job describe` lists it. */
export interface ParamDoc {
  /** Dotted path: `mail.to`. */
  path: string;
  type: string;
  required: boolean;
  default?: unknown;
  description?: string;
}

/** The params a job type accepts, as JSON Schema (what a user writes: defaults optional). */
export function paramsJsonSchema(jobType: JobType): JsonSchema {
  // "any" keeps a schema that holds a refinement or custom type describable.
  return z.toJSONSchema(jobType.params, { io: "input", unrepresentable: "any" }) as JsonSchema;
}

function range(min: number | undefined, max: number | undefined, unit: string): string {
  if (min !== undefined && max !== undefined)
    return min === max ? `${min}${unit}` : `${min}–${max}${unit}`;
  if (min !== undefined) return `≥ ${min}${unit}`;
  if (max !== undefined) return `≤ ${max}${unit}`;
  return "";
}

function withDetail(base: string, ...details: string[]): string {
  const shown = details.filter((d) => d !== "");
  return shown.length > 0 ? `${base} (${shown.join(", ")})` : base;
}

/** A schema's type in a few words: `integer (1–1000)`, `email or list of email (1–50 items)`. */
export function typeText(s: JsonSchema): string {
  const variants = s.anyOf ?? s.oneOf;
  if (variants) return variants.map(typeText).join(" or ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return s.enum.map((v) => (typeof v === "string" ? v : JSON.stringify(v))).join(" | ");
  if (Array.isArray(s.type)) return s.type.map((t) => typeText({ ...s, type: t })).join(" or ");
  switch (s.type) {
    case "string":
      if (s.format) return s.format;
      return withDetail(
        "string",
        range(s.minLength, s.maxLength, " chars"),
        s.pattern ? `matching ${s.pattern}` : "",
      );
    case "integer":
    case "number": {
      const low = s.exclusiveMinimum !== undefined ? `> ${s.exclusiveMinimum}` : "";
      const high = s.exclusiveMaximum !== undefined ? `< ${s.exclusiveMaximum}` : "";
      return withDetail(s.type, range(s.minimum, s.maximum, ""), low, high);
    }
    case "array": {
      const items = range(s.minItems, s.maxItems, " items");
      return `list${items ? ` (${items})` : ""} of ${s.items ? typeText(s.items) : "any"}`;
    }
    case "object":
      if (typeof s.additionalProperties === "object" && !s.properties) {
        return `map of ${typeText(s.additionalProperties)}`;
      }
      return "object";
    case undefined:
      return "any";
    default:
      return s.type;
  }
}

/** Every param of an object schema, nested objects' fields listed after them with dotted paths. */
export function paramDocs(schema: JsonSchema, prefix = "", parentRequired = true): ParamDoc[] {
  const docs: ParamDoc[] = [];
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    const path = prefix ? `${prefix}.${key}` : key;
    const required = parentRequired && (schema.required ?? []).includes(key);
    const nested = prop.type === "object" && prop.properties !== undefined;
    docs.push({
      path,
      type: typeText(prop),
      required,
      // A group's default is its fields' defaults, shown on their own rows.
      ...(prop.default !== undefined && !nested ? { default: prop.default } : {}),
      ...(prop.description ? { description: prop.description } : {}),
    });
    if (nested) docs.push(...paramDocs(prop, path, required));
  }
  return docs;
}

/** A default as a table shows it: strings bare, anything else as JSON. */
export function defaultText(value: unknown): string {
  return typeof value === "string" && value !== "" ? value : JSON.stringify(value);
}

/** The example as a params file (YAML) for `--params-file`. */
export function exampleYaml(example: Record<string, unknown>): string {
  return stringify(example).trimEnd();
}

/** The example as a shell-quoted `--params` argument. */
export function exampleParamsArg(example: Record<string, unknown>): string {
  return `'${JSON.stringify(example).replace(/'/g, "'\\''")}'`;
}
