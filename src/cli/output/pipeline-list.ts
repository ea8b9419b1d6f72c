import type { PipelineDefinition } from "../../engine/registry/pipeline-definition.ts";
import type { CliSession } from "../session.ts";

/**
 * `--help` text after `fake` and `demo`: the pipelines that have one, each with what it is,
 * each line within 80 columns. `describe` returns undefined for a pipeline without one.
 */
export function pipelineList(
  session: CliSession,
  describe: (p: PipelineDefinition) => string | undefined,
): string {
  const rows = session.registry.pipelines.flatMap((p) => {
    const text = describe(p);
    return text === undefined ? [] : [[p.name, text] as const];
  });
  const width = Math.max(...rows.map(([name]) => name.length));
  const indent = " ".repeat(width + 4);
  const lines = rows.map(([name, text]) =>
    wrapWords(text, 80 - indent.length)
      .map((part, i) => (i === 0 ? `  ${name.padEnd(width)}  ${part}` : `${indent}${part}`))
      .join("\n"),
  );
  return `\nPipelines:\n${lines.join("\n")}`;
}

/** Words of text in lines of at most max characters (a longer word stands alone). */
function wrapWords(text: string, max: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > max) {
      lines.push(line);
      line = word;
    } else {
      line = line ? `${line} ${word}` : word;
    }
  }
  if (line) lines.push(line);
  return lines;
}
