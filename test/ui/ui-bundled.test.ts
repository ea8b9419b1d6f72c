// The dashboard from the esbuild bundle (what `npm install` runs): its pages and the assets it
// reads from the installed htmx.org and uplot packages.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildInstalledLayout } from "../../scripts/build.ts";

describe("the dashboard in the bundled build", () => {
  let work: string;
  let bin: string;

  beforeAll(async () => {
    work = mkdtempSync(path.join(tmpdir(), "tm-ui-bundle-"));
    bin = await buildInstalledLayout(path.join(work, "pkg"));
  }, 90_000);
  afterAll(() => rmSync(work, { recursive: true, force: true, maxRetries: 3 }));

  it("serves the sign-in page and every asset", async () => {
    const dataDir = path.join(work, "data");
    const child = spawn(process.execPath, [bin, "serve", "--port", "0"], {
      cwd: work,
      env: {
        ...process.env,
        TIDEMARK_FROM_SOURCE: "",
        TIDEMARK_DATA_DIR: dataDir,
        TIDEMARK_DATABASE_URL: `sqlite:${path.join(dataDir, "tidemark.db")}`,
        TIDEMARK_API_TOKENS: "bundled-ui-token-0123456789",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    const exited = new Promise((resolve) => child.on("exit", resolve));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no start:\n${out}`)), 30_000);
        const onData = (d: Buffer) => {
          out += d.toString();
          const m = /Listening on (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        };
        child.stdout.on("data", onData);
        child.stderr.on("data", onData);
      });
      const signIn = await fetch(`${url}/ui/sign-in`);
      expect(signIn.status).toBe(200);
      expect(await signIn.text()).toContain("API token");
      for (const a of ["htmx.min.js", "uplot.min.js", "uplot.min.css", "app.css", "app.js"]) {
        const res = await fetch(`${url}/ui/assets/${a}`);
        expect({ a, status: res.status }).toEqual({ a, status: 200 });
        expect((await res.text()).length).toBeGreaterThan(100);
      }
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  }, 60_000);
});
