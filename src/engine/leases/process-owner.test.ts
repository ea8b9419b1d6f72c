import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { formatOwner, isGoneHere, parseOwner, pidAlive, thisProcess } from "./process-owner.ts";

describe("process owner", () => {
  it("round-trips through its stored form and rejects anything else", () => {
    const me = thisProcess();
    expect(me.pid).toBe(process.pid);
    expect(parseOwner(formatOwner(me))).toEqual(me);
    for (const bad of [null, "", "nope", '{"host":"h"}', '{"host":"h","pidNs":"","pid":"1"}']) {
      expect(parseOwner(bad)).toBeUndefined();
    }
  });

  it("tells a live pid from one whose process has exited", () => {
    expect(pidAlive(process.pid)).toBe(true);
    const child = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"]);
    const exited = Number(child.stdout.toString());
    expect(pidAlive(exited)).toBe(false);
    expect(isGoneHere({ ...thisProcess(), pid: exited })).toBe(true);
    expect(isGoneHere(thisProcess())).toBe(false);
    expect(isGoneHere({ ...thisProcess(), host: "elsewhere", pid: exited })).toBe(false);
  });
});
