// Measures how fast `tidemark --help` answers (target: < 500 ms), from the bundled build
// (what `npm install` produces) and from source through tsx, over several runs.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const bin = `${root}bin/tidemark.js`;
const RUNS = 10;

function measure(label: string, env: NodeJS.ProcessEnv): void {
  const times: number[] = [];
  for (let i = 0; i < RUNS + 1; i++) {
    const t0 = process.hrtime.bigint();
    const r = spawnSync(process.execPath, [bin, "--help"], { env: { ...process.env, ...env } });
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    if (r.status !== 0) throw new Error(`${label}: exit ${r.status}: ${r.stderr}`);
    if (i > 0) times.push(ms); // the first run warms the OS file cache
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  const max = times.at(-1)!;
  const verdict = median < 500 ? "OK" : "SLOW";
  console.log(
    `${label.padEnd(28)} median ${median.toFixed(0)} ms  max ${max.toFixed(0)} ms  (target < 500 ms: ${verdict})`,
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
