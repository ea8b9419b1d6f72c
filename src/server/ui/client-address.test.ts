import { describe, expect, it } from "vitest";
import { throttleKey } from "./client-address.ts";

describe("throttleKey", () => {
  it("keeps an IPv4 address, also when the socket reports it IPv4-mapped", () => {
    expect(throttleKey("203.0.113.9")).toBe("203.0.113.9");
    expect(throttleKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
  });

  it("counts an IPv6 client by its /64, however the address is written", () => {
    const a = throttleKey("2001:db8:0:12:aaaa::1");
    expect(a).toBe("2001:db8:0:12::/64");
    expect(throttleKey("2001:0DB8:0000:0012:ffff:1:2:3")).toBe(a);
    expect(throttleKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(throttleKey("::1")).toBe("0:0:0:0::/64");
    expect(throttleKey("2001:db8:0:13::1")).not.toBe(a);
  });
});
