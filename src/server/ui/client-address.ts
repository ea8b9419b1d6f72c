import { isIP } from "node:net";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { TrustedProxies } from "../../infra/config/trusted-proxies.ts";
import type { UiContext } from "./ui-env.ts";

/**
 * The key the sign-in throttle counts a client's failures under: the socket's remote address,
 * or, when that is one of `server.trusted_proxies`, the client X-Forwarded-For names. From
 * anyone else the header is ignored: it would get a fresh count on every attempt. An IPv6 client
 * counts by its /64, which one host usually holds whole. "unknown" when there is no socket
 * (in-process tests).
 */
export function clientAddress(c: UiContext, proxies: TrustedProxies): string {
  let address: string | undefined;
  try {
    address = getConnInfo(c).remote.address;
  } catch {
    // No Node socket behind the request (app.request in tests).
  }
  if (!address) return "unknown";
  return throttleKey(proxies.client(address, c.req.header("x-forwarded-for")));
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
