import { describe, expect, it } from "vitest";
import { failOpen } from "../../src/lib/middleware/rate-limit";
import { UpstashRateLimiter } from "../../src/lib/rate-limit/upstash-limiter";
import { fakeProviderScenario } from "../factories";

const rule = { name: "key", identifier: "abc123", rate: { limit: 5, period: 10 } } as const;

describe("UpstashRateLimiter", () => {
  // The SHA-1 of @upstash/ratelimit's fixed-window script; keys: the window's counter; args: limit, window in ms, cost.
  it("sends one EVALSHA of the fixed-window script to the REST API with the token", async () => {
    const upstash = fakeProviderScenario();
    await upstash.script([{ status: 200, body: { result: [1, 5] } }]);
    await new UpstashRateLimiter({ url: upstash.baseUrl, token: "tok_secret" }).limit(rule);
    const [request, ...more] = await upstash.captured();
    expect(more).toEqual([]);
    expect(request).toMatchObject({ method: "POST", path: "/", headers: expect.objectContaining({ authorization: "Bearer tok_secret" }) });
    const bucket = Math.floor(Date.now() / 10_000);
    expect(JSON.parse(request?.body ?? "null")).toEqual([
      "evalsha",
      "b2efc02798c8e9b471a10f9b1d5745db89923ff3",
      1,
      expect.stringMatching(new RegExp(`^clarion:rl:key:abc123:(${bucket - 1}|${bucket})$`)),
      5,
      10_000,
      1,
    ]);
  });

  it("allows a request within the limit and says how many are left", async () => {
    const upstash = fakeProviderScenario();
    await upstash.script([{ status: 200, body: { result: [2, 5] } }]);
    const decision = await new UpstashRateLimiter({ url: upstash.baseUrl, token: "t" }).limit(rule);
    expect(decision).toMatchObject({ success: true, remaining: 3 });
    expect(decision.resetSeconds).toBeGreaterThan(0);
    expect(decision.resetSeconds).toBeLessThanOrEqual(10);
  });

  it("refuses the request past the limit", async () => {
    const upstash = fakeProviderScenario();
    await upstash.script([{ status: 200, body: { result: [6, 5] } }]);
    expect(await new UpstashRateLimiter({ url: upstash.baseUrl, token: "t" }).limit(rule)).toMatchObject({ success: false, remaining: 0 });
  });

  it("lets the request through when Upstash answers with an error", async () => {
    const upstash = fakeProviderScenario();
    await upstash.script([{ status: 500, body: { error: "ERR internal" } }]);
    const limiter = failOpen(new UpstashRateLimiter({ url: upstash.baseUrl, token: "t" }));
    expect(await limiter.limit(rule)).toEqual({ success: true, resetSeconds: 10 });
  });
});
