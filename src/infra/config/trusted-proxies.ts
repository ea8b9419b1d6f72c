import { BlockList, isIP } from "node:net";

/** True when `entry` is an IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
export function isAddressOrRange(entry: string): boolean {
  const [address = "", prefix, extra] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  if (prefix === undefined) return true;
  if (!/^\d{1,3}$/.test(prefix)) return false;
  return Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * The addresses of the reverse proxies in front of `tidemark serve` (`server.trusted_proxies`):
 * only a request that comes from one of them has its X-Forwarded-For believed.
 */
export class TrustedProxies {
  readonly #list = new BlockList();
  readonly size: number;

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [address = "", prefix] = entry.split("/");
      const type = isIP(address) === 6 ? "ipv6" : "ipv4";
      if (prefix === undefined) this.#list.addAddress(address, type);
      else this.#list.addSubnet(address, Number(prefix), type);
    }
    this.size = entries.length;
  }

  /** True when `address` (IPv4, IPv6 or IPv4-mapped IPv6) is one of the proxies. */
  has(address: string): boolean {
    const bare = address.replace(/%.*$/, "");
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    if (mapped) return this.#list.check(mapped[1]!, "ipv4");
    const family = isIP(bare);
    if (family === 0) return false;
    return this.#list.check(bare, family === 6 ? "ipv6" : "ipv4");
  }

  /**
   * The client behind a request: the socket's address, or, when that is a trusted proxy, the
   * nearest address in X-Forwarded-For that is not one (read right to left, as each proxy
   * appends the address it was reached from). Entries left of it are the client's own words.
   */
  client(remote: string, forwardedFor: string | undefined): string {
    if (!this.has(remote) || !forwardedFor) return remote;
    const hops = forwardedFor
      .split(",")
      .map((h) => h.trim())
      .filter((h) => h !== "");
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (isIP(hop.replace(/%.*$/, "")) === 0) return remote; // Not an address: believe nothing.
      if (!this.has(hop)) return hop;
    }
    return hops[0] ?? remote;
  }
}
