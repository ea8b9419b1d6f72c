import { execFile } from "node:child_process";
import { createRequire } from "node:module";
import { Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.ts";
import { isSecretKey, REDACTED, redactSecrets, redactText } from "./redact.ts";

function capture() {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _enc, cb) {
      lines.push(...chunk.toString().trim().split("\n"));
      cb();
    },
  });
  return { lines, logger: createLogger({ level: "debug", destination }) };
}

describe("secret redaction", () => {
  it("recognises secret field names in any case and spelling", () => {
    for (const k of [
      "key",
      "apiKey",
      "api_key",
      "accessKey",
      "Authorization",
      "applicationId",
      "password",
      "X-Api-Key",
    ]) {
      expect(isSecretKey(k), k).toBe(true);
    }
    for (const k of ["keyword", "monkey", "q", "startIndex", "author"])
      expect(isSecretKey(k), k).toBe(false);
  });

  it("leaves values another layer already masked as they are (redaction is idempotent)", () => {
    const masked = "database postgres://tm:***@h:1/x?password=***: cannot connect";
    expect(redactText(masked)).toBe(masked);
    const once = redactText("postgres://u:pw@h/x?token=abc&q=1");
    expect(once).toBe(`postgres://u:${REDACTED}@h/x?token=${REDACTED}&q=1`);
    expect(redactText(once)).toBe(once);
  });

  it("scrubs query parameters, bearer tokens and URL passwords from text", () => {
    expect(redactText("GET https://x/v1/volumes?q=a&key=AIzaSECRET&startIndex=0")).toBe(
      `GET https://x/v1/volumes?q=a&key=${REDACTED}&startIndex=0`,
    );
    expect(redactText("applicationId=123&affiliateId=9&keyword=tea")).toBe(
      `applicationId=${REDACTED}&affiliateId=${REDACTED}&keyword=tea`,
    );
    expect(redactText("sent key=abc and q=tea")).toBe(`sent key=${REDACTED} and q=tea`);
    expect(redactText("?applicationId=123&keyword=tea")).toBe(
      `?applicationId=${REDACTED}&keyword=tea`,
    );
    expect(redactText("Authorization: Bearer abc.def-ghi")).toBe(
      `Authorization: Bearer ${REDACTED}`,
    );
    expect(redactText("postgres://app:hunter2@db:5432/x")).toBe(
      `postgres://app:${REDACTED}@db:5432/x`,
    );
  });

  it("deep-redacts objects, arrays, errors and headers without touching the original", () => {
    const input = {
      url: "https://api/x?apiKey=S1",
      headers: { Authorization: "Bearer S2", accept: "json" },
      nested: [{ accessKey: "S3", ok: 1 }],
    };
    const out = redactSecrets(input);
    expect(JSON.stringify(out)).not.toMatch(/S1|S2|S3/);
    expect(out).toMatchObject({ headers: { accept: "json" }, nested: [{ ok: 1 }] });
    expect(input.headers.Authorization).toBe("Bearer S2");
    const err = Object.assign(new Error("failed: https://api/x?key=S4"), { password: "S5" });
    expect(JSON.stringify(redactSecrets({ err }))).not.toMatch(/S4|S5/);
    expect(redactSecrets(new Headers({ authorization: "Bearer S6", accept: "json" }))).toEqual({
      authorization: REDACTED,
      accept: "json",
    });
  });
});

describe("logger", () => {
  it("writes JSON lines with ISO time and level name, secrets redacted everywhere", () => {
    const { lines, logger } = capture();
    logger.info(
      { url: "https://api/x?key=TOPSECRET", apiKey: "TOPSECRET2" },
      "calling https://api/x?key=TOPSECRET3",
    );
    logger.error({ err: new Error("boom at https://h/?accessKey=TOPSECRET4") }, "failed");
    logger.debug("plain %s", "Bearer TOPSECRET5");
    const text = lines.join("\n");
    expect(text).not.toContain("TOPSECRET");
    const first = JSON.parse(lines[0]!);
    expect(first).toMatchObject({ level: "info", msg: `calling https://api/x?key=${REDACTED}` });
    expect(first.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(JSON.parse(lines[1]!).err.message).toBe(`boom at https://h/?accessKey=${REDACTED}`);
    expect(lines).toHaveLength(3);
  });

  it("child loggers keep redacting", () => {
    const { lines, logger } = capture();
    logger
      .child({ run_id: "r1" })
      .warn({ headers: { authorization: "Bearer XYZSECRET" } }, "retry");
    expect(lines[0]).not.toContain("XYZSECRET");
    expect(JSON.parse(lines[0]!)).toMatchObject({ run_id: "r1", level: "warn" });
  });
});

describe("pretty output (a terminal)", () => {
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve("tsx")).href;

  /** stderr of a child process that logs one error through the pretty transport. */
  async function prettyError(prettyStacks: boolean): Promise<string> {
    const script = `
      const { createLogger } = await import(process.argv[1]);
      const log = createLogger({ level: "info", pretty: true, prettyStacks: process.argv[2] === "yes" });
      log.error({ err: new Error("boom") }, "run failed");`;
    const logger = fileURLToPath(new URL("./logger.ts", import.meta.url));
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [
      "--import",
      tsx,
      "--input-type=module",
      "-e",
      script,
      logger,
      prettyStacks ? "yes" : "no",
    ]);
    expect(stdout).toBe("");
    return stderr;
  }

  it("hides stack traces unless asked (the CLI asks with --verbose)", async () => {
    const quiet = await prettyError(false);
    expect(quiet).toContain("run failed");
    expect(quiet).toContain('"message": "boom"');
    expect(quiet).not.toMatch(/^\s+at /m);
    expect(await prettyError(true)).toMatch(/^\s+at /m);
  });
});
