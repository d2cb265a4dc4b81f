import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSandboxEnvironment, unique } from "../factories";
import { api } from "../request";
import { awayFromWindowEdge } from "../rate-limit/window";

// Defaults: 20 requests per link per 60 s; vitest.config.ts sets 5 per client IP per 60 s (1,000 in production).

async function link() {
  const { key } = await createSandboxEnvironment();
  const subscriberId = unique("s");
  await api(key, "POST", "/sub", { subscriberId, email: "ada@example.com" });
  const minted = await api<{ url: string; unsubscribeUrl: string }>(key, "POST", `/v1/subscribers/${subscriberId}/preference-link`);
  return { key, subscriberId, page: new URL(minted.body.url).pathname, unsubscribe: new URL(minted.body.unsubscribeUrl).pathname };
}

const oneClick = (path: string, headers: Record<string, string> = {}) =>
  SELF.fetch(`http://clarion.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
    body: "List-Unsubscribe=One-Click",
  });
const get = (path: string, headers: Record<string, string> = {}) => SELF.fetch(`http://clarion.test${path}`, { headers });

describe("rate limits of /u and /p", () => {
  it("answer 429 with Retry-After once one link has had 20 requests in a minute, GET and POST, /u and /p alike", async () => {
    await awayFromWindowEdge();
    const { key, subscriberId, page, unsubscribe } = await link();
    const token = page.slice("/p/".length);
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await get(i % 2 ? page : unsubscribe)).status);
    for (let i = 0; i < 10; i++) statuses.push((await get(i % 2 ? `/p/${token}` : `/u/${token}`)).status);
    expect(statuses).toEqual(Array(20).fill(200));

    const refused = await oneClick(unsubscribe);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(refused.headers.get("ratelimit-policy")).toBe('"link";q=20;w=60');
    expect(refused.headers.get("content-type")).toMatch(/^text\/html/);
    expect(refused.headers.get("referrer-policy")).toBe("no-referrer");
    expect(await refused.text()).toContain("Too many requests");
    expect((await get(page)).status).toBe(429);
    // Refused before the link was read: nothing changed.
    const prefs = await api<{ channels: Record<string, boolean> }>(key, "GET", `/v1/subscribers/${subscriberId}/preferences`);
    expect(prefs.body.channels.email).toBe(true);

    // Another link is counted on its own.
    expect((await get((await link()).page)).status).toBe(200);
  });

  it("answer 429 once one client IP has spent its rate, over any links, while other IPs go on", async () => {
    await awayFromWindowEdge();
    const ip = `203.0.113.${Math.floor(Math.random() * 250) + 1}`;
    const links = await Promise.all([link(), link(), link()]);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await get(links[i % 3]!.page, { "cf-connecting-ip": ip })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    const refused = await oneClick(links[0]!.unsubscribe, { "cf-connecting-ip": ip });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("ratelimit-policy")).toBe('"link_ip";q=5;w=60');
    expect((await oneClick(links[0]!.unsubscribe, { "cf-connecting-ip": "198.51.100.77" })).status).toBe(200);
  });

  it("count tampered tokens too, before any lookup", async () => {
    await awayFromWindowEdge();
    const { page } = await link();
    const edited = `${page.slice(0, -1)}${page.endsWith("A") ? "B" : "A"}`;
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await get(edited)).status);
    expect(statuses.slice(0, 20)).toEqual(Array(20).fill(404));
    expect(statuses[20]).toBe(429);
  });
});
