import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";

/**
 * `npx` and `npm` for a guide's commands, offline and against this checkout: `npx tidemark`
 * runs the built layout's CLI (as an installed tarball would), `npm install` links each
 * dependency of the package.json in the working folder (tidemark to the layout, the rest to this
 * checkout's node_modules), `npm test` runs Vitest. Returns the folder to put first in PATH.
 */
export function writeShims(dir: string, layout: string, repo: string): string {
  const bin = path.join(dir, "shims");
  mkdirSync(bin, { recursive: true });
  const modules = path.join(repo, "node_modules");
  const linker = `
const fs = require("node:fs"), path = require("node:path");
const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
for (const name of Object.keys({ ...pkg.dependencies, ...pkg.devDependencies })) {
  const to = name === "tidemark" ? ${JSON.stringify(layout)} : path.join(${JSON.stringify(modules)}, name);
  const at = path.join("node_modules", name);
  fs.mkdirSync(path.dirname(at), { recursive: true });
  if (!fs.existsSync(at)) fs.symlinkSync(to, at, "dir");
}`;
  writeFileSync(
    path.join(bin, "npx"),
    `#!/usr/bin/env bash
if [ "$1" = tidemark ]; then shift; exec "${process.execPath}" "${layout}/bin/tidemark.js" "$@"; fi
echo "npx shim: only tidemark" >&2; exit 127
`,
  );
  writeFileSync(
    path.join(bin, "npm"),
    `#!/usr/bin/env bash
case "$1" in
  install) exec "${process.execPath}" -e '${linker.replaceAll("'", "'\\''")}' ;;
  test) exec "${process.execPath}" "${modules}/vitest/vitest.mjs" run ;;
esac
echo "npm shim: only install and test" >&2; exit 127
`,
  );
  for (const f of ["npx", "npm"]) chmodSync(path.join(bin, f), 0o755);
  return bin;
}
