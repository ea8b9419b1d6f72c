import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadConfig } from "./load-config.ts";
import { isAddressOrRange, TrustedProxies } from "./trusted-proxies.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function cwdWith(yaml: string): string {
  const d = mkdtempSync(path.join(tmpdir(), "tm-proxies-"));
  dirs.push(d);
  writeFileSync(path.join(d, "tidemark.yaml"), yaml);
  return d;
}

describe("trusted proxies", () => {
  const proxies = new TrustedProxies(["10.0.0.0/8", "127.0.0.1", "fd00::/8"]);

  it("a request from a trusted proxy is the client X-Forwarded-For names, read right to left", () => {
    expect(proxies.client("10.1.2.3", "203.0.113.9")).toBe("203.0.113.9");
    // The client wrote the left entry itself; the proxies appended the rest.
    expect(proxies.client("127.0.0.1", "198.51.100.1, 203.0.113.9, 10.9.9.9")).toBe("203.0.113.9");
    expect(proxies.client("::ffff:127.0.0.1", "2001:db8::1")).toBe("2001:db8::1");
    expect(proxies.client("fd12::1", "203.0.113.9")).toBe("203.0.113.9");
    // Only proxies in the chain: the leftmost is the nearest thing to a client there is.
    expect(proxies.client("10.1.2.3", "10.2.2.2, 10.3.3.3")).toBe("10.2.2.2");
  });

  it("anyone else's X-Forwarded-For is ignored, and so is one that is not addresses", () => {
    expect(proxies.client("203.0.113.7", "198.51.100.1")).toBe("203.0.113.7");
    expect(proxies.client("10.1.2.3", undefined)).toBe("10.1.2.3");
    expect(proxies.client("10.1.2.3", "")).toBe("10.1.2.3");
    expect(proxies.client("10.1.2.3", "unknown, 203.0.113.9")).toBe("203.0.113.9");
    expect(proxies.client("10.1.2.3", "203.0.113.9, garbage")).toBe("10.1.2.3");
    expect(new TrustedProxies([]).client("10.1.2.3", "198.51.100.1")).toBe("10.1.2.3");
  });

  it("accepts addresses and CIDR ranges only", () => {
    for (const ok of ["10.0.0.1", "10.0.0.0/8", "::1", "fd00::/8", "0.0.0.0/0"]) {
      expect(isAddressOrRange(ok), ok).toBe(true);
    }
    for (const bad of ["proxy.local", "10.0.0.0/33", "::/129", "10.0.0.0/x", "1.2.3.4/8/9", ""]) {
      expect(isAddressOrRange(bad), bad).toBe(false);
    }
  });

  it("server.trusted_proxies and TIDEMARK_TRUSTED_PROXIES set it; a bad entry names the key", () => {
    const cwd = cwdWith("server:\n  trusted_proxies: [10.0.0.0/8]\n");
    expect(loadConfig({ cwd, env: {} }).server.trustedProxies).toEqual(["10.0.0.0/8"]);
    const env = { TIDEMARK_TRUSTED_PROXIES: "127.0.0.1, ::1" };
    expect(loadConfig({ cwd, env }).server.trustedProxies).toEqual(["127.0.0.1", "::1"]);
    expect(loadConfig({ cwd: cwdWith(""), env: {} }).server.trustedProxies).toEqual([]);
    const bad = cwdWith("server:\n  trusted_proxies: [proxy.local]\n");
    expect(() => loadConfig({ cwd: bad, env: {} })).toThrow(
      /server\.trusted_proxies\.0: must be an IP address or a CIDR range/,
    );
  });
});
