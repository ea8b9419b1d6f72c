import type { z } from "zod";

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
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

/**
 * Formats zod issues as one line: `<where>: <path>: <message> (got <value>)` joined by `; `,
 * so every error names the path and the offending value.
 */
export function formatZodIssues(where: string, error: z.ZodError, input: unknown): string {
  return error.issues
    .map((issue) => {
      const path = issue.path.length > 0 ? issue.path.join(".") : "(root)";
      if (issue.code === "unrecognized_keys") {
        return `${where}: ${path}: unknown key(s) ${issue.keys.map((k) => JSON.stringify(k)).join(", ")}`;
      }
      return `${where}: ${path}: ${issue.message} (got ${show(valueAt(input, issue.path))})`;
    })
    .join("; ");
}
