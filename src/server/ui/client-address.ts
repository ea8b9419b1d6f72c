import { isIP } from "node:net";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { UiContext } from "./ui-env.ts";

/**
 * The key the sign-in throttle counts a client's failures under: the socket's remote address.
 * Forwarding headers (X-Forwarded-For) are not trusted: Tidemark has no trusted-proxy setting,
 * and anyone could send them to get a fresh count on every attempt. An IPv6 client counts by its
 * /64, which one host usually holds whole. "unknown" when there is no socket (in-process tests).
 */
export function clientAddress(c: UiContext): string {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    // No Node socket behind the request (app.request in tests).
  }
  return address ? throttleKey(address) : "unknown";
}

/** An address as the throttle keys it: IPv4 as is (also when IPv4-mapped), IPv6 by its /64. */
export function throttleKey(address: string): string {
  const bare = address.replace(/%.*$/, "").toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (mapped) return mapped[1]!;
  if (isIP(bare) !== 6) return bare;
  const [head = "", tail] = bare.split("::");
  const left = head ? head.split(":") : [];
  const right = tail ? tail.split(":") : [];
  const groups = [...left, ...Array(8 - left.length - right.length).fill("0"), ...right];
  return `${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
