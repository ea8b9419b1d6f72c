/** A copyable command in a printed line: `npx tidemark …` or `tidemark …` to the line's end. */
const COMMAND = /(?:^|\s)((?:npx )?tidemark -c \S+ .*)$/;

/**
 * A printed line within `width` columns: a command keeps its line whole (it is copied as is)
 * and its label goes on the line above; other text wraps at words under its own indentation
 * plus two spaces. Multi-line text is fitted line by line.
 */
export function fitLines(text: string, width: number): string[] {
  return text.split("\n").flatMap((line) => fitLine(line, width));
}

function fitLine(line: string, width: number): string[] {
  if (line.length <= width) return [line];
  const command = COMMAND.exec(line);
  if (command?.[1]) {
    const label = line.slice(0, command.index).trimEnd();
    return label ? [label, `  ${command[1]}`] : [command[1]];
  }
  // A line ending in an absolute path (the user's own folder) stays whole: it is copied as is.
  if (/\s\/\S+$/.test(line)) return [line];
  const more = `${/^\s*/.exec(line)?.[0] ?? ""}  `;
  const out: string[] = [];
  let rest = line;
  while (rest.length > width) {
    // The last space that keeps the part within width; the spacing inside parts is kept.
    const cut = rest.lastIndexOf(" ", width);
    const at = cut > more.length ? cut : width;
    out.push(rest.slice(0, at).trimEnd());
    rest = `${more}${rest.slice(at).trimStart()}`;
  }
  out.push(rest);
  return out;
}
