import type { z } from "zod";
import { isSecretKey, redactText, redactUrlPassword } from "../logging/redact.ts";
import type { EnvSources } from "./env-overrides.ts";
import { closestKey, knownKeysAt } from "./known-keys.ts";

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

function show(value: unknown): string {
  if (value === undefined) return "nothing";
  // Hidden before the cut below: a cut URL could lose the `@` that marks its password.
  const text = JSON.stringify(
    typeof value === "string" ? redactText(redactUrlPassword(value)) : value,
  );
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/** Secrets are described, never shown: "a 12-character value", "a number", "a list". */
function describeSecret(value: unknown): string {
  if (typeof value === "string") return `a ${value.length}-character value`;
  // A secret typed as a number or a list is still the secret: only its kind is named.
  if (value === undefined || value === null) return show(value);
  if (Array.isArray(value)) return `a list of ${value.length}`;
  return typeof value === "object" ? "an object" : `a ${typeof value}`;
}

/**
 * True when a path names a secret (a key like `password`, or an item of `api_tokens`), or a
 * variable name (`*_env`): a value refused there is most often the secret pasted in its place.
 */
function isSecretPath(path: ReadonlyArray<PropertyKey>): boolean {
  return path.some(
    (k) =>
      typeof k === "string" &&
      (isSecretKey(k) || k === "api_tokens" || /secret/i.test(k) || k.endsWith("_env")),
  );
}

/** The variable that set this path (or a parent of it), if one did. */
function sourceOf(path: ReadonlyArray<PropertyKey>, sources: EnvSources | undefined) {
  if (!sources) return undefined;
  for (let n = path.length; n > 0; n--) {
    const name = sources.get(path.slice(0, n).join("."));
    if (name) return name;
  }
  return undefined;
}

/**
 * Formats zod issues as one line: `<where>: <path>: <message> (got <value>)` joined by `; `,
 * so every error names the path and the offending value. A value that came from an environment
 * variable (`sources`) is blamed on that variable; a secret's value is never printed (a secret
 * path such as `password` or `api_tokens`, or a custom check raised with `params: { secret: true }`).
 */
export function formatZodIssues(
  where: string,
  error: z.ZodError,
  input: unknown,
  sources?: EnvSources,
  /** The schema parsed: a mistyped key gets "did you mean" its closest known key. */
  schema?: z.ZodType,
): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join(".") : "(root)";
      if (issue.code === "unrecognized_keys") {
        const known = schema ? knownKeysAt(schema, issue.path) : [];
        const keys = issue.keys.map((k) => {
          const near = closestKey(k, known);
          return near
            ? `${JSON.stringify(k)} (did you mean ${JSON.stringify(near)}?)`
            : JSON.stringify(k);
        });
        return `${where}: ${path}: unknown key(s) ${keys.join(", ")}`;
      }
      const value = valueAt(input, issue.path);
      // A check may mark the value itself as a secret (e.g. an API key pasted into a name).
      const marked = issue.code === "custom" && issue.params?.secret === true;
      const got = marked || isSecretPath(issue.path) ? describeSecret(value) : show(value);
      const variable = sourceOf(issue.path, sources);
      if (!variable) return `${where}: ${path}: ${issue.message} (got ${got})`;
      // The value came from the environment: name the variable, not the file.
      return where === "configuration"
        ? `${where}: ${path}: ${issue.message} (got ${got}), set by ${variable}`
        : `${variable}: ${path}: ${issue.message} (got ${got})`;
    })
    .join("; ");
}
