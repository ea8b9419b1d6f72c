import type { CliIo } from "../io.ts";

/** Terminal width for tables: stdout's columns on a terminal, else `otherwise` (default 100). */
export function terminalWidth(io: Pick<CliIo, "isTTY" | "columns">, otherwise = 100): number {
  return (io.isTTY && io.columns) || otherwise;
}

/** Text on one line, cut to `max` characters with an ellipsis when longer. */
export function fitOneLine(text: string, max: number): string {
  const line = text.replace(/\s*\r?\n\s*/g, " ").trim();
  if (line.length <= max) return line;
  return `${line.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}
