import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { apiKeys } from "../../src/db/schema";
import { generateApiKey, ownerOfKey, UNKNOWN_KEY_TTL_MS } from "../../src/features/environments/api-keys";
import { sha256Hex } from "../../src/lib/crypto";
import { newId } from "../../src/lib/ids";
import { createEnvironment } from "../factories";
import { api, expectProblem } from "../request";
import { awayFromWindowEdge } from "./window";

// vitest.config.ts sets RATE_LIMITS for these slugs: rl-env-* 5 requests/60 s per environment, rl-key* 4/60 s per key, rl-both both.
const listWorkflows = (key: string, headers: Record<string, string> = {}) => api(key, "GET", "/v1/workflows", undefined, { headers });

async function spend(key: string, times: number) {
  const statuses: number[] = [];
  for (let i = 0; i < times; i++) statuses.push((await listWorkflows(key)).status);
  return statuses;
}

async function addKey(environmentId: string, slug: string) {
  const { key, prefix } = generateApiKey(slug);
  await createDb(env.DB)
    .insert(apiKeys)
    .values({ id: newId("key"), environmentId, name: "second", prefix, hash: await sha256Hex(key), createdAt: new Date() });
  return key;
}

describe("request rate limits", () => {
  it("answers 429 rate_limited with Retry-After and RateLimit headers once a key's limit is spent", async () => {
    await awayFromWindowEdge();
    const { key } = await createEnvironment("rl-key");
    expect(await spend(key, 4)).toEqual([200, 200, 200, 200]);
    const res = await listWorkflows(key);
    const problem = expectProblem(res, 429, "rate_limited");
    expect(problem.detail).toContain("API key");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.headers.get("ratelimit-policy")).toBe('"key";q=4;w=60');
    expect(res.headers.get("ratelimit")).toMatch(/^"key";r=0;t=\d+$/);
  });

  it("answers 429 once other isolates have spent a key's limit in the binding", async () => {
    await awayFromWindowEdge();
    const { key } = await createEnvironment("rl-key-shared");
    // What other isolates (or locations' worth of them) would have counted: this isolate has seen none of it.
    const binding = (env as unknown as Record<string, RateLimit>).RATE_LIMIT_4_PER_60S!;
    for (let i = 0; i < 4; i++) await binding.limit({ key: `key:${await sha256Hex(key)}` });
    const res = await listWorkflows(key);
    expectProblem(res, 429, "rate_limited");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(res.headers.get("ratelimit")).toMatch(/^"key";r=0;t=\d+$/);
  });

  it("asks the binding about one limit per request, the one nearest its end", async () => {
    await awayFromWindowEdge();
    const { id, key } = await createEnvironment("rl-both");
    expect(await spend(key, 4)).toEqual([200, 200, 200, 200]);
    // The key's limit (4) was nearer its end than the environment's (5) on every request: the
    // environment's binding counter was never asked, so it still has all of its 5 requests.
    const binding = (env as unknown as Record<string, RateLimit>).RATE_LIMIT_5_PER_60S!;
    const direct: boolean[] = [];
    for (let i = 0; i < 5; i++) direct.push((await binding.limit({ key: `environment:${id}` })).success);
    expect(direct).toEqual([true, true, true, true, true]);
  });

  it("describes the limits on an answer within them", async () => {
    const { key } = await createEnvironment();
    const res = await listWorkflows(key);
    expect(res.status).toBe(200);
    expect(res.headers.get("ratelimit-policy")).toBe('"environment";q=150000;w=10, "key";q=100000;w=10');
  });

  it("counts every key of an environment against the environment's limit", async () => {
    await awayFromWindowEdge();
    const { id, key } = await createEnvironment("rl-env-a");
    const second = await addKey(id, "rl-env-a");
    expect([...(await spend(key, 3)), ...(await spend(second, 2))]).toEqual([200, 200, 200, 200, 200]);
    const res = await listWorkflows(second);
    expectProblem(res, 429, "rate_limited");
    expect(res.headers.get("ratelimit-policy")).toBe('"environment";q=5;w=60');
  });

  it("does not count one environment's requests against another with the same limit", async () => {
    await awayFromWindowEdge();
    const spentEnv = await createEnvironment("rl-env-b");
    const other = await createEnvironment("rl-env-c");
    expect(await spend(spentEnv.key, 6)).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await listWorkflows(other.key)).status).toBe(200);
  });
});

describe("failed authentication", () => {
  const badKey = (n: number) => `ck_flood_${String(n).padStart(32, "0")}`;

  it("answers 401 to a client's first 20 bad keys in a minute, then 429", async () => {
    await awayFromWindowEdge();
    const ip = "203.0.113.7";
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) statuses.push((await listWorkflows(badKey(i), { "cf-connecting-ip": ip })).status);
    expect(statuses).toEqual(Array(20).fill(401));
    const res = await listWorkflows(badKey(20), { "cf-connecting-ip": ip });
    expectProblem(res, 429, "rate_limited");
    expect(res.headers.get("ratelimit-policy")).toBe('"auth_failures";q=20;w=60');
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  });

  it("does not limit another client for one client's failures", async () => {
    await awayFromWindowEdge();
    for (let i = 0; i < 21; i++) await listWorkflows(badKey(i), { "cf-connecting-ip": "198.51.100.1" });
    expectProblem(await listWorkflows(badKey(0), { "cf-connecting-ip": "198.51.100.2" }), 401, "unauthorized");
  });

  it("still lets a valid key through from a client over its failure limit", async () => {
    await awayFromWindowEdge();
    const { key } = await createEnvironment();
    for (let i = 0; i < 21; i++) await listWorkflows(badKey(i), { "cf-connecting-ip": "198.51.100.9" });
    expect((await listWorkflows(key, { "cf-connecting-ip": "198.51.100.9" })).status).toBe(200);
  });
});

describe("unknown key cache", () => {
  it("answers a repeated unknown key from memory, without reading D1", async () => {
    const { id } = await createEnvironment();
    const { key, prefix } = generateApiKey("late");
    expectProblem(await listWorkflows(key), 401, "unauthorized");
    // Created after the miss: a D1 read would find it, so a second 401 proves D1 was not read.
    await createDb(env.DB)
      .insert(apiKeys)
      .values({ id: newId("key"), environmentId: id, name: "late", prefix, hash: await sha256Hex(key), createdAt: new Date() });
    expectProblem(await listWorkflows(key), 401, "unauthorized");
  });

  it("finds a key created after a miss once the miss has expired", async () => {
    const { id } = await createEnvironment();
    const { key, prefix } = generateApiKey("later");
    const t0 = Date.now();
    expect(await ownerOfKey(env.DB, key, t0)).toBeNull();
    await createDb(env.DB)
      .insert(apiKeys)
      .values({ id: newId("key"), environmentId: id, name: "later", prefix, hash: await sha256Hex(key), createdAt: new Date() });
    expect(await ownerOfKey(env.DB, key, t0 + UNKNOWN_KEY_TTL_MS - 1)).toBeNull();
    expect(await ownerOfKey(env.DB, key, t0 + UNKNOWN_KEY_TTL_MS + 1)).toMatchObject({ environmentId: id });
  });
});
