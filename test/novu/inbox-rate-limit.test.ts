import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { issueSessionToken, SESSION_TTL_SECONDS } from "../../src/novu/inbox/session-token";
import { createEnvironment, unique } from "../factories";
import { awayFromWindowEdge } from "../rate-limit/window";
import { inbox, startSession } from "./inbox-client";

const socket = (token: string, ip: string) =>
  SELF.fetch(`http://clarion.test/novu/socket?token=${encodeURIComponent(token)}`, {
    headers: { upgrade: "websocket", "cf-connecting-ip": ip },
  });

// Failed Inbox authentications count per client IP with failed API keys (auth_failures, 20 a minute by default).
describe("Inbox failed authentications are rate limited", () => {
  it("answers 429 with Retry-After once a client has failed too often, mixing sessions and tokens", async () => {
    const ip = "203.0.113.77";
    const headers = { "cf-connecting-ip": ip };
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++)
      statuses.push((await inbox(null, "POST", "/session", { applicationIdentifier: `nope-${i}`, subscriberId: "a" }, headers)).status);
    for (let i = 0; i < 10; i++) statuses.push((await inbox(`not-a-token-${i}`, "GET", "/notifications", undefined, headers)).status);
    expect(statuses).toEqual([...Array(10).fill(404), ...Array(10).fill(401)]);

    const refused = await inbox(null, "POST", "/session", { applicationIdentifier: "nope", subscriberId: "a" }, headers);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await inbox("not-a-token", "GET", "/notifications", undefined, headers)).status).toBe(429);
    // Another client is not refused.
    const other = await inbox(
      null,
      "POST",
      "/session",
      { applicationIdentifier: "nope", subscriberId: "a" },
      { "cf-connecting-ip": "203.0.113.78" },
    );
    expect(other.status).toBe(404);
  });

  it("counts bad tokens on the realtime socket with the session's failures: then the socket and REST answer 429", async () => {
    await awayFromWindowEdge();
    const ip = "203.0.113.79";
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await socket(`not-a-token-${i}`, ip)).status);
    expect(statuses).toEqual(Array(20).fill(401));

    const refused = await socket("not-a-token", ip);
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { code: string }).code).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await inbox("not-a-token", "GET", "/notifications", undefined, { "cf-connecting-ip": ip })).status).toBe(429);
    const session = await inbox(null, "POST", "/session", { applicationIdentifier: "nope", subscriberId: "a" }, { "cf-connecting-ip": ip });
    expect(session.status).toBe(429);
    expect((await socket("not-a-token", "203.0.113.80")).status).toBe(401);
  });

  it("does not count a token Clarion issued whose session ended: @novu/js reconnects with it until the page reloads", async () => {
    await awayFromWindowEdge();
    const ip = "203.0.113.81";
    const { id, key } = await createEnvironment();
    const subscriberId = unique("sub");
    await startSession(key, subscriberId);
    const expired = await issueSessionToken(
      env.ENCRYPTION_KEY,
      { environmentId: id, subscriberId },
      new Date(Date.now() - (SESSION_TTL_SECONDS + 60) * 1000),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 25; i++) statuses.push((await socket(expired, ip)).status);
    expect(statuses).toEqual(Array(25).fill(401));
    expect((await socket("not-a-token", ip)).status).toBe(401);
  });
});
