import { readlinkSync } from "node:fs";
import { hostname } from "node:os";

/** A process as the owner of a lease. */
export interface ProcessOwner {
  host: string;
  /**
   * The pid namespace (Linux `/proc/self/ns/pid`), "" where there is none: containers sharing a
   * host name (host networking) see each other's pids only within one namespace.
   */
  pidNs: string;
  pid: number;
}

function pidNamespace(): string {
  try {
    return readlinkSync("/proc/self/ns/pid");
  } catch {
    return "";
  }
}

let self: ProcessOwner | undefined;

/** This process. */
export function thisProcess(): ProcessOwner {
  self ??= { host: hostname(), pidNs: pidNamespace(), pid: process.pid };
  return self;
}

/** The stored form of an owner. */
export function formatOwner(owner: ProcessOwner): string {
  return JSON.stringify(owner);
}

/** Parses a stored owner; undefined for null or anything malformed. */
export function parseOwner(text: string | null | undefined): ProcessOwner | undefined {
  if (!text) return undefined;
  try {
    const o = JSON.parse(text) as Partial<ProcessOwner>;
    if (typeof o.host === "string" && typeof o.pidNs === "string" && Number.isInteger(o.pid)) {
      return { host: o.host, pidNs: o.pidNs, pid: o.pid as number };
    }
  } catch {
    // not an owner we wrote
  }
  return undefined;
}

/** True while a process with this pid exists (possibly another user's). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * True when owner was a process of this machine and pid namespace, not this one, and no such
 * pid exists any more. A reused pid reads as alive: the lease then simply waits for its TTL.
 */
export function isGoneHere(
  owner: ProcessOwner,
  me: ProcessOwner = thisProcess(),
  alive: (pid: number) => boolean = pidAlive,
): boolean {
  return (
    owner.host === me.host && owner.pidNs === me.pidNs && owner.pid !== me.pid && !alive(owner.pid)
  );
}
