import path from "node:path";

/**
 * Packages and built-in modules a module loads through static imports alone (what importing it
 * costs before any `await import()`): esbuild resolves the graph, we follow only static edges.
 */
export async function staticExternalImports(entry: string): Promise<string[]> {
  // Loaded on use: esbuild comes with tsx, and only this check needs it.
  const { build } = await import("esbuild");
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "node",
    outdir: path.join(path.dirname(entry), "__static_imports__"),
    packages: "external",
    logLevel: "silent",
  });
  const inputs = result.metafile.inputs;
  const rel = path.relative(process.cwd(), entry).split(path.sep).join("/");
  const start = Object.keys(inputs).find((k) => k === rel || k.endsWith(`/${rel}`));
  if (!start) throw new Error(`esbuild did not see ${rel}`);
  const seen = new Set<string>();
  const found = new Set<string>();
  const queue = [start];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    seen.add(file);
    for (const imp of inputs[file]?.imports ?? []) {
      if (imp.kind !== "import-statement") continue;
      if (imp.external) found.add(imp.path);
      else queue.push(imp.path);
    }
  }
  return [...found].sort();
}
