// Measures how fast `tidemark --help` answers (target: < 500 ms), from the bundled build
// (what `npm install` produces) and from source through tsx, over several runs; then what
// `npx tidemark` adds on top, against npm's own start-up (`npx node -e 0`).
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = `${root}bin/tidemark.js`;
const RUNS = 10;

/** Median and max wall time of a command over `runs` runs (after one warm-up run). */
function time(
  label: string,
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  runs = RUNS,
): { median: number; max: number } {
  const times: number[] = [];
  for (let i = 0; i < runs + 1; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(command, args, { cwd: root, env: { ...process.env, ...env } });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${label}: exit ${r.status}: ${r.stderr}`);
    if (i > 0) times.push(ms); // the first run warms the OS file cache
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)]!, max: times.at(-1)! };
}

function measure(label: string, env: NodeJS.ProcessEnv): void {
  const { median, max } = time(label, process.execPath, [bin, "--help"], env);
  const verdict = median < 500 ? "OK" : "SLOW";
  console.log(
    `${label.padEnd(28)} median ${median.toFixed(0)} ms  max ${max.toFixed(0)} ms  (target < 500 ms: ${verdict})`,
  );
}

/**
 * `npx tidemark` in the clone: npm runs the project's own bin by first reading the whole
 * installed tree (every package under node_modules), which costs seconds that are npm's, not
 * Tidemark's. Printed beside npm's bare start-up and the forms that skip it.
 */
function measureNpx(): void {
  const runs = 3;
  const line = (label: string, t: { median: number; max: number }) =>
    console.log(`${label.padEnd(28)} median ${t.median.toFixed(0)} ms  max ${t.max.toFixed(0)} ms`);
  const direct = time("node", process.execPath, [bin, "--help"], {}, runs);
  const npx = time("npx tidemark", "npx", ["tidemark", "--help"], {}, runs);
  const npmFloor = time("npx node -e 0", "npx", ["node", "-e", "0"], {}, runs);
  const npmRun = time("npm run", "npm", ["run", "-s", "tidemark", "--", "--help"], {}, runs);
  console.log(`\nnpx and npm, ${runs} runs each`);
  line("node bin/tidemark.js --help", direct);
  line("npm run -s tidemark --help", npmRun);
  line("npx node -e 0 (npm's floor)", npmFloor);
  line("npx tidemark --help", npx);
  const npmOwn = npx.median - direct.median;
  console.log(
    `npx adds ${npmOwn.toFixed(0)} ms to each call: npm's start-up and its walk of node_modules ` +
      "before it runs the project's own bin. Use node bin/tidemark.js (or an alias) for many calls.",
  );
}

const baseline = spawnSync(process.execPath, ["-e", "0"]);
if (baseline.status !== 0) throw new Error("node did not start");
if (!existsSync(`${root}dist/main.js`)) {
  console.log("dist/ missing: building it (npm run build)");
  execFileSync("npm", ["run", "build"], { cwd: root, stdio: "inherit" });
}
console.log(`tidemark --help, ${RUNS} runs each`);
{
  const t0 = process.hrtime.bigint();
  spawnSync(process.execPath, ["-e", "0"]);
  console.log(
    `node -e 0 (floor)            ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(0)} ms`,
  );
}
measure("bundled (dist/)", { TIDEMARK_FROM_SOURCE: "" });
measure("from source (tsx)", { TIDEMARK_FROM_SOURCE: "1" });
measureNpx();
