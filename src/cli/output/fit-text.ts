/** Terminal width for tables: stdout's columns on a terminal, else 100. */
export function terminalWidth(isTTY: boolean): number {
  return (isTTY && process.stdout.columns) || 100;
}

/** Text on one line, cut to `max` characters with an ellipsis when longer. */
export function fitOneLine(text: string, max: number): string {
  const line = text.replace(/\s*\r?\n\s*/g, " ").trim();
  if (line.length <= max) return line;
  return `${line.slice(0, Math.max(0, max - 1)).trimEnd()}…`;
}
