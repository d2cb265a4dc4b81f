import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import type { BulkSubscribersResult as BulkResult } from "../../src/features/subscribers/schemas";
import { createEnvironment, subscriberRow, unique } from "../factories";
import { api, errorPaths, expectProblem } from "../request";

let environment: { id: string; key: string };
beforeAll(async () => {
  environment = await createEnvironment();
});

const bulk = (subscribers: unknown[], path = "/sub/bulk") => api<BulkResult>(environment.key, "POST", path, { subscribers });

const channelRows = (subscriberId: string) =>
  env.DB.prepare(
    "SELECT channel, provider, address FROM subscriber_channels WHERE environment_id = ? AND subscriber_id = ? ORDER BY channel, address",
  )
    .bind(environment.id, subscriberId)
    .all<{ channel: string; provider: string; address: string }>()
    .then((r) => r.results);

describe("POST /sub/bulk", () => {
  it("lists created and updated subscribers", async () => {
    const existing = unique("sub");
    const fresh = unique("sub");
    expect((await api(environment.key, "POST", "/sub", { subscriberId: existing })).status).toBe(201);
    const res = await bulk([
      { subscriberId: existing, firstName: "Old" },
      { subscriberId: fresh, firstName: "New" },
    ]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ created: [fresh], updated: [existing], failed: [] });
    expect(await subscriberRow(environment.id, existing)).toMatchObject({ first_name: "Old" });
    expect(await subscriberRow(environment.id, fresh)).toMatchObject({ first_name: "New" });
  });

  it("answers at /sub/bulk/ as well", async () => {
    const subscriberId = unique("sub");
    const res = await bulk([{ subscriberId }], "/sub/bulk/");
    expect(res.status).toBe(200);
    expect(res.body.created).toEqual([subscriberId]);
  });

  it("accepts a body over 1 MiB (the bulk limit is 8 MiB)", async () => {
    const subscribers = Array.from({ length: 400 }, () => ({ subscriberId: unique("sub"), data: { blob: "x".repeat(3000) } }));
    const res = await bulk(subscribers, "/sub/bulk/");
    expect(res.status).toBe(200);
    expect(res.body.created).toHaveLength(400);
  });

  it("reports a bad item by index and subscriberId without failing the rest", async () => {
    const good1 = unique("sub");
    const bad = unique("sub");
    const good2 = unique("sub");
    const res = await bulk([
      { subscriberId: good1, email: "g1@example.com" },
      { subscriberId: bad, email: "not-an-email" },
      { subscriberId: good2, phone: "+41791234567" },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.created.sort()).toEqual([good1, good2].sort());
    expect(res.body.updated).toEqual([]);
    expect(res.body.failed).toEqual([
      {
        index: 1,
        subscriberId: bad,
        error: {
          type: "https://clarion.dev/errors/validation-failed",
          title: "Validation failed",
          status: 422,
          code: "validation_failed",
          detail: expect.any(String),
          errors: [expect.objectContaining({ path: "email" })],
        },
      },
    ]);
    expect(await subscriberRow(environment.id, bad)).toBeNull();
    expect(await subscriberRow(environment.id, good2)).toMatchObject({ phone: "+41791234567" });
  });

  it.each([
    ["a non-object item", 42, null],
    ["an item without subscriberId", { email: "a@example.com" }, null],
    ["an item with a numeric subscriberId", { subscriberId: 7 }, null],
    ["an item with an unknown field", { subscriberId: "known-id", bogus: true }, "known-id"],
    ["an item with a bad time zone", { subscriberId: "tz-id", timezone: "Nowhere/Else" }, "tz-id"],
  ])("reports %s as failed", async (_label, item, subscriberId) => {
    const ok = unique("sub");
    const res = await bulk([{ subscriberId: ok }, item]);
    expect(res.status).toBe(200);
    expect(res.body.created).toEqual([ok]);
    expect(res.body.failed).toEqual([{ index: 1, subscriberId, error: expect.objectContaining({ code: "validation_failed" }) }]);
  });

  it("writes 500 subscribers in one request", async () => {
    const prefix = unique("many");
    const items = Array.from({ length: 500 }, (_, i) => ({
      subscriberId: `${prefix}-${i}`,
      // Different shapes, so that several statement groups are written together.
      ...(i % 3 === 0 ? { email: `u${i}@example.com` } : {}),
      ...(i % 3 === 1 ? { phone: `+4179${String(1000000 + i)}`, firstName: `F${i}` } : {}),
      ...(i % 3 === 2 ? { email: `u${i}@example.com`, locale: "en", timezone: "UTC", data: { i } } : {}),
    }));
    const res = await bulk(items);
    expect(res.status).toBe(200);
    expect(res.body.failed).toEqual([]);
    expect(res.body.updated).toEqual([]);
    expect(new Set(res.body.created)).toEqual(new Set(items.map((i) => i.subscriberId)));
    const { results } = await env.DB.prepare(
      "SELECT subscriber_id, email, phone FROM subscribers WHERE environment_id = ? AND subscriber_id LIKE ?",
    )
      .bind(environment.id, `${prefix}-%`)
      .all<{ subscriber_id: string; email: string | null; phone: string | null }>();
    expect(results).toHaveLength(500);
    expect(results.find((r) => r.subscriber_id === `${prefix}-4`)).toMatchObject({ phone: "+41791000004", email: null });
  });

  it("updates 500 existing subscribers in one request", async () => {
    const prefix = unique("again");
    const ids = Array.from({ length: 500 }, (_, i) => `${prefix}-${i}`);
    expect((await bulk(ids.map((subscriberId) => ({ subscriberId })))).body.created).toHaveLength(500);
    const res = await bulk(ids.map((subscriberId) => ({ subscriberId, lastName: "Updated" })));
    expect(res.status).toBe(200);
    expect(res.body.created).toEqual([]);
    expect(new Set(res.body.updated)).toEqual(new Set(ids));
  });

  it("rejects 501 subscribers with 422 validation_failed", async () => {
    const items = Array.from({ length: 501 }, (_, i) => ({ subscriberId: `over-${i}` }));
    const problem = expectProblem(await bulk(items), 422, "validation_failed");
    expect(errorPaths(problem)).toContain("subscribers");
    expect(await subscriberRow(environment.id, "over-0")).toBeNull();
  });

  it.each([
    ["no subscribers", { subscribers: [] }],
    ["subscribers is not an array", { subscribers: { subscriberId: "x" } }],
    ["subscribers is missing", {}],
  ])("rejects a request with %s with 422 validation_failed", async (_label, body) => {
    expectProblem(await api(environment.key, "POST", "/sub/bulk", body), 422, "validation_failed");
  });

  it("writes the channels of each item", async () => {
    const a = unique("sub");
    const b = unique("sub");
    const res = await bulk([
      {
        subscriberId: a,
        channels: {
          push: [
            { provider: "fcm", token: "a-1" },
            { provider: "fcm", token: "a-2" },
          ],
        },
      },
      { subscriberId: b, channels: { chat: [{ provider: "slack", webhookUrl: "https://example.com/b" }] } },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.created.sort()).toEqual([a, b].sort());
    expect(await channelRows(a)).toEqual([
      { channel: "push", provider: "fcm", address: "a-1" },
      { channel: "push", provider: "fcm", address: "a-2" },
    ]);
    expect(await channelRows(b)).toEqual([{ channel: "chat", provider: "slack", address: "https://example.com/b" }]);
  });

  it("replaces the channels of existing subscribers", async () => {
    const a = unique("sub");
    await bulk([
      {
        subscriberId: a,
        channels: { push: [{ provider: "fcm", token: "old" }], chat: [{ provider: "slack", webhookUrl: "https://example.com/keep" }] },
      },
    ]);
    const res = await bulk([{ subscriberId: a, channels: { push: [{ provider: "apns", token: "new" }] } }]);
    expect(res.body.updated).toEqual([a]);
    expect(await channelRows(a)).toEqual([
      { channel: "chat", provider: "slack", address: "https://example.com/keep" },
      { channel: "push", provider: "apns", address: "new" },
    ]);
  });

  it("writes 500 subscribers with push tokens", async () => {
    const prefix = unique("push");
    const items = Array.from({ length: 500 }, (_, i) => ({
      subscriberId: `${prefix}-${i}`,
      channels: { push: [{ provider: "fcm", token: `${prefix}-token-${i}` }] },
    }));
    const res = await bulk(items);
    expect(res.status).toBe(200);
    expect(res.body.created).toHaveLength(500);
    const { results } = await env.DB.prepare(
      "SELECT COUNT(*) AS n FROM subscriber_channels WHERE environment_id = ? AND subscriber_id LIKE ?",
    )
      .bind(environment.id, `${prefix}-%`)
      .all<{ n: number }>();
    expect(results[0]?.n).toBe(500);
  });

  it("does not fail when one subscriberId appears twice; the later item wins", async () => {
    const subscriberId = unique("twice");
    const res = await bulk([
      { subscriberId, email: "first@example.com" },
      { subscriberId, email: "second@example.com" },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.failed).toEqual([]);
    expect(await subscriberRow(environment.id, subscriberId)).toMatchObject({ email: "second@example.com" });
  });

  it("reports a subscriberId given twice once, under created", async () => {
    const subscriberId = unique("twice");
    const res = await bulk([{ subscriberId, firstName: "Ada" }, { subscriberId: unique("other") }, { subscriberId, lastName: "Lovelace" }]);
    expect(res.status).toBe(200);
    expect(res.body.created.filter((id) => id === subscriberId)).toEqual([subscriberId]);
    expect(res.body.updated).toEqual([]);
  });

  it("reports an existing subscriberId given twice once, under updated", async () => {
    const subscriberId = unique("twice");
    expect((await api(environment.key, "POST", "/sub", { subscriberId })).status).toBe(201);
    const res = await bulk([
      { subscriberId, firstName: "Ada" },
      { subscriberId, lastName: "Lovelace" },
    ]);
    expect(res.body).toEqual({ created: [], updated: [subscriberId], failed: [] });
  });

  it("merges a subscriberId given twice field by field, the later item winning", async () => {
    const subscriberId = unique("twice");
    await bulk([
      { subscriberId, email: "first@example.com", firstName: "Ada", channels: { push: [{ provider: "fcm", token: "t-1" }] } },
      { subscriberId, email: "second@example.com", lastName: "Lovelace", channels: { chat: [{ provider: "slack", channelId: "C1" }] } },
    ]);
    expect(await subscriberRow(environment.id, subscriberId)).toMatchObject({
      email: "second@example.com",
      first_name: "Ada",
      last_name: "Lovelace",
    });
    expect(await channelRows(subscriberId)).toEqual([
      { channel: "chat", provider: "slack", address: "C1" },
      { channel: "push", provider: "fcm", address: "t-1" },
    ]);
  });

  it("does not write anything for a request that is all failures", async () => {
    const res = await bulk([{ email: "no-id@example.com" }, { subscriberId: "" }]);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      created: [],
      updated: [],
      failed: [expect.objectContaining({ index: 0, subscriberId: null }), expect.objectContaining({ index: 1, subscriberId: "" })],
    });
  });
});
