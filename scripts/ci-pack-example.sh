#!/usr/bin/env bash
# CI: the path a user takes, from the packed tarball on a clean folder.
#   1. `npm pack` Tidemark.
#   2. The example pipeline (examples/registry-feed) in a fresh folder with the tarball: its
#      tests, and its demo through the installed CLI.
#   3. A fresh project with the tarball: `npx tidemark new pipeline acme`, then the next steps
#      exactly as it printed them (npm install, npm test, job types, demo), then the pipeline
#      from `plugins:` against its fake, and its panel fetched from a running `tidemark serve`.
# Everything happens below one temp folder (TMPDIR respected), removed at the end.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/tidemark-pack.XXXXXX")"
PIDS=()
# Background commands run in a session of their own (setsid): npx does not pass a signal on to
# the tidemark process it started, so the whole group is stopped, not only npx.
cleanup() {
  for pid in "${PIDS[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# npm reads these for every install below, the printed `npm install` included: the cache first,
# no audit or funding requests.
export npm_config_prefer_offline=true npm_config_audit=false npm_config_fund=false
export npm_config_update_notifier=false
# The tests and commands below use their own SQLite databases; Postgres stays on if CI set it.
unset TIDEMARK_DATA_DIR TIDEMARK_DATABASE_URL

step() { echo "== pack: $*"; }

# Waits for a line matching $2 in file $1 (a background process's output); prints it.
wait_for_line() {
  for _ in $(seq 1 300); do
    if grep -m1 -E "$2" "$1"; then return 0; fi
    sleep 0.2
  done
  echo "FAIL: no line matching '$2' in $1:" >&2
  cat "$1" >&2
  return 1
}

step "npm pack (of the dist/ that npm ci built)"
for built in dist/main.js dist/sdk/index.js dist/types/sdk/index.d.ts; do
  [ -f "$ROOT/$built" ] || { echo "FAIL: $built is missing: run npm run build first" >&2; exit 1; }
done
TARBALL="$WORK/$(cd "$ROOT" && npm pack --ignore-scripts --silent --pack-destination "$WORK" | tail -n 1)"
ls -l "$TARBALL"

step "the example pipeline, installed from the tarball"
EXAMPLE="$WORK/registry-feed"
mkdir "$EXAMPLE"
(cd "$ROOT/examples/registry-feed" && tar --exclude=node_modules --exclude=data -cf - .) |
  (cd "$EXAMPLE" && tar -xf -)
(
  cd "$EXAMPLE"
  node -e '
    const fs = require("node:fs");
    const pkg = JSON.parse(fs.readFileSync("package.json", "utf8"));
    pkg.devDependencies.tidemark = "file:" + process.argv[1];
    fs.writeFileSync("package.json", JSON.stringify(pkg, null, 2) + "\n");
  ' "$TARBALL"
  npm install
  npm run typecheck # against the type declarations the tarball ships
  npm test
  npx tidemark -c tidemark.yaml demo --only registry-feed --data-dir demo
)

step "a fresh project: npx tidemark new pipeline acme, then its printed next steps"
PROJECT="$WORK/project"
mkdir "$PROJECT"
(
  cd "$PROJECT"
  npm init -y >/dev/null
  npm install "$TARBALL"
  npx tidemark new pipeline acme | tee new-pipeline.out
  # The indented lines between "Next steps:" and the closing line, run exactly as printed.
  sed -n '/Next steps:/,/^Then/p' new-pipeline.out | sed -n 's/^  //p' >next-steps.sh
  echo "-- next steps:"
  cat next-steps.sh
  bash -euo pipefail next-steps.sh | tee next-steps.out
  grep -q "acme.sync" next-steps.out || { echo "FAIL: job types did not list acme.sync" >&2; exit 1; }
)

step "acme from plugins: against its fake, then its panel on the dashboard"
ACME="$PROJECT/acme"
cd "$ACME"
npm run typecheck
setsid npx tidemark -c tidemark.yaml fake acme >fake.out 2>&1 &
PIDS+=($!)
URL_LINE="$(wait_for_line fake.out 'export TIDEMARK_ACME_URL=')"
export TIDEMARK_ACME_URL="${URL_LINE##*=}"
export TIDEMARK_ACME_REQUESTS_PER_SECOND=1000
npx tidemark -c tidemark.yaml db migrate
npx tidemark -c tidemark.yaml job add records --type acme.sync
npx tidemark -c tidemark.yaml run records
npx tidemark -c tidemark.yaml run records --json | node -e '
  let text = ""; process.stdin.on("data", (d) => (text += d)).on("end", () => {
    const { status, summary } = JSON.parse(text);
    if (status !== "succeeded" || summary.changed !== 0 || summary.unchanged_skipped < 1) {
      console.error("FAIL: a second run should skip every record", status, summary);
      process.exit(1);
    }
    console.log(`second run: ${summary.unchanged_skipped} unchanged, skipped`);
  });'

PORT="$(node -e 'const s=require("node:net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
setsid npx tidemark -c tidemark.yaml serve --insecure-no-auth --port "$PORT" >serve.out 2>&1 &
PIDS+=($!)
node -e '
  const url = process.argv[1];
  const deadline = Date.now() + 60_000;
  (async () => {
    for (;;) {
      try {
        const res = await fetch(url);
        const page = await res.text();
        if (res.status !== 200) throw new Error(`status ${res.status}`);
        for (const want of ["Acme", "Latest records", "rec-0120"]) {
          if (!page.includes(want)) throw new Error(`the panel lacks ${JSON.stringify(want)}`);
        }
        console.log(`panel: ${url} answered 200 with the records`);
        return;
      } catch (err) {
        if (Date.now() > deadline) { console.error(`FAIL: ${url}: ${err.message}`); process.exit(1); }
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  })();
' "http://127.0.0.1:$PORT/ui/pipelines/acme" || { cat serve.out >&2; exit 1; }

step "ok"
