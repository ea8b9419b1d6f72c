import { Registry } from "prom-client";
import { expect, it } from "vitest";
import {
  blockedCount,
  countBlocked,
  registerMercariMetrics,
} from "../../../src/pipelines/mercari/client/blocked.ts";

it("blocked crawls are counted on /metrics by phase and reason", async () => {
  const register = new Registry();
  await registerMercariMetrics(register);
  const before = blockedCount();
  countBlocked("list", "http_403");
  countBlocked("list", "http_403");
  countBlocked("detail", "html_block_page");
  expect(blockedCount()).toBe(before + 3);
  const text = await register.metrics();
  expect(text).toMatch(/tidemark_mercari_blocked_total\{phase="list",reason="http_403"\} 2/);
  expect(text).toMatch(
    /tidemark_mercari_blocked_total\{phase="detail",reason="html_block_page"\} 1/,
  );
});
