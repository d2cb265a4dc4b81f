import { describe, expect, it } from "vitest";
import { createEnvironment, unique } from "../factories";
import { api } from "../request";
import { NOVU_NODE_AGENT, novu } from "./client";

interface CursorList<T> {
  data: T[];
  next: string | null;
  previous: string | null;
  totalCount: number;
  totalCountCapped: boolean;
}
type Ids = CursorList<{ subscriberId: string; _id: string }>;

/** An environment with subscribers `p-0` … `p-{n-1}` (zero-padded, so they sort by number). */
async function withSubscribers(n: number, extra: (i: number) => Record<string, unknown> = () => ({})) {
  const env = await createEnvironment();
  const ids = Array.from({ length: n }, (_, i) => `p-${String(i).padStart(2, "0")}`);
  await api(env.key, "POST", "/sub/bulk", { subscribers: ids.map((subscriberId, i) => ({ subscriberId, ...extra(i) })) });
  return { ...env, ids };
}

describe("GET /v2/subscribers (@novu/api subscribers.search)", () => {
  it("pages forward with next and back with previous, counting every match", async () => {
    const { key, ids } = await withSubscribers(5);
    const first = await novu<Ids>(key, "GET", "/v2/subscribers?limit=2");
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ previous: null, totalCount: 5, totalCountCapped: false });
    expect(first.body.data.map((s) => s.subscriberId)).toEqual(ids.slice(0, 2));
    const second = await novu<Ids>(key, "GET", `/v2/subscribers?limit=2&after=${first.body.next}`);
    expect(second.body.data.map((s) => s.subscriberId)).toEqual(ids.slice(2, 4));
    const third = await novu<Ids>(key, "GET", `/v2/subscribers?limit=2&after=${second.body.next}`);
    expect(third.body.data.map((s) => s.subscriberId)).toEqual(ids.slice(4));
    expect(third.body.next).toBeNull();
    const back = await novu<Ids>(key, "GET", `/v2/subscribers?limit=2&before=${third.body.previous}`);
    expect(back.body.data.map((s) => s.subscriberId)).toEqual(ids.slice(2, 4));
    expect(back.body.next).not.toBeNull();
    const start = await novu<Ids>(key, "GET", `/v2/subscribers?limit=2&before=${back.body.previous}`);
    expect(start.body.data.map((s) => s.subscriberId)).toEqual(ids.slice(0, 2));
    expect(start.body.previous).toBeNull();
  });

  it("orders DESC and keeps the cursor's item with includeCursor", async () => {
    const { key, ids } = await withSubscribers(4);
    const desc = await novu<Ids>(key, "GET", "/v2/subscribers?limit=2&orderDirection=DESC");
    expect(desc.body.data.map((s) => s.subscriberId)).toEqual([ids[3], ids[2]]);
    const rest = await novu<Ids>(key, "GET", `/v2/subscribers?limit=2&orderDirection=DESC&after=${desc.body.next}&includeCursor=true`);
    expect(rest.body.data.map((s) => s.subscriberId)).toEqual([ids[2], ids[1]]);
  });

  it("filters by email, phone, subscriberId and name, in Novu's subscriber shape", async () => {
    const { key } = await withSubscribers(3, (i) => ({
      email: `p${i}@example.com`,
      phone: `+4179123456${i}`,
      firstName: ["Ada", "Grace", "Alan"][i],
      lastName: ["Lovelace", "Hopper", "Turing"][i],
    }));
    const only = async (query: string) => (await novu<Ids>(key, "GET", `/v2/subscribers?${query}`)).body.data.map((s) => s.subscriberId);
    expect(await only("email=p1%40example.com")).toEqual(["p-01"]);
    expect(await only("phone=%2B41791234562")).toEqual(["p-02"]);
    expect(await only("subscriberId=p-00")).toEqual(["p-00"]);
    expect(await only("name=ce%20hop")).toEqual(["p-01"]);
    expect(await only("name=p-0")).toEqual([]);
    const one = await novu<Ids>(key, "GET", "/v2/subscribers?email=p0%40example.com");
    expect(one.body).toMatchObject({ totalCount: 1, next: null, previous: null });
    expect(one.body.data[0]).toMatchObject({
      _id: expect.stringMatching(/^sub_/),
      subscriberId: "p-00",
      firstName: "Ada",
      channels: [],
      deleted: false,
      _environmentId: expect.any(String),
    });
  });

  it("masks push tokens as the subscriber read does", async () => {
    const { key } = await createEnvironment();
    await api(key, "POST", "/sub", { subscriberId: "tok", channels: { push: [{ provider: "fcm", token: "fcm-secret-token-123" }] } });
    const res = await novu<CursorList<{ channels: { credentials: { deviceTokens: string[] } }[] }>>(key, "GET", "/v2/subscribers");
    const token = res.body.data[0]?.channels[0]?.credentials.deviceTokens[0];
    expect(token).toBeDefined();
    expect(token).not.toBe("fcm-secret-token-123");
  });

  it("refuses a cursor it did not give and a limit over 100 in Novu's error shape", async () => {
    const { key } = await createEnvironment();
    expect(await novu(key, "GET", "/v2/subscribers?after=nope")).toMatchObject({ status: 422, body: { statusCode: 422 } });
    expect(await novu(key, "GET", "/v2/subscribers?limit=101")).toMatchObject({ status: 422, body: { statusCode: 422 } });
  });
});

describe("GET /v2/topics and /v2/topics/{key}/subscriptions (@novu/api topics.list, subscriptions.list)", () => {
  it("lists topics by key with cursors, filtered by key or name", async () => {
    const { key } = await createEnvironment();
    for (const [k, name] of [
      ["t-a", "Alpha news"],
      ["t-b", "Beta"],
      ["t-c", "Gamma news"],
    ])
      await api(key, "POST", "/v1/topics", { key: k, name });
    const first = await novu<CursorList<{ key: string; _id: string }>>(key, "GET", "/v2/topics?limit=2");
    expect(first.body).toMatchObject({ totalCount: 3, previous: null, next: "t-b" });
    expect(first.body.data.map((t) => t.key)).toEqual(["t-a", "t-b"]);
    const rest = await novu<CursorList<{ key: string }>>(key, "GET", `/v2/topics?limit=2&after=${first.body.next}`);
    expect(rest.body).toMatchObject({ data: [{ key: "t-c" }], next: null, previous: "t-c" });
    const named = await novu<CursorList<{ key: string }>>(key, "GET", "/v2/topics?name=NEWS");
    expect(named.body.data.map((t) => t.key)).toEqual(["t-a", "t-c"]);
    expect((await novu<CursorList<{ key: string }>>(key, "GET", "/v2/topics?key=t-b")).body.data.map((t) => t.key)).toEqual(["t-b"]);
  });

  it("lists a topic's subscriptions, one per member, and 404s an unknown topic", async () => {
    const { key } = await createEnvironment();
    const topic = unique("subs").toLowerCase();
    await novu(key, "POST", `/v2/topics/${topic}/subscriptions`, { subscriptions: ["m-1", "m-2", "m-3"] });
    type Subs = CursorList<{ identifier: string; topic: { key: string }; subscriber: { _id: string; subscriberId: string } }>;
    const page = await novu<Subs>(key, "GET", `/v2/topics/${topic}/subscriptions?limit=2`);
    expect(page.body).toMatchObject({ totalCount: 3, next: "m-2", previous: null });
    expect(page.body.data[0]).toMatchObject({
      identifier: `${topic}:m-1`,
      topic: { key: topic },
      subscriber: { _id: expect.stringMatching(/^sub_/), subscriberId: "m-1" },
    });
    const one = await novu<Subs>(key, "GET", `/v2/topics/${topic}/subscriptions?subscriberId=m-3`);
    expect(one.body.data.map((s) => s.subscriber.subscriberId)).toEqual(["m-3"]);
    expect(await novu(key, "GET", "/v2/topics/nothing/subscriptions")).toMatchObject({ status: 404, body: { code: "topic_not_found" } });
  });
});

describe("GET /v2/subscribers/{subscriberId}/subscriptions (@novu/api subscribers.topics.list)", () => {
  it("lists the subscriber's topics by key, filters by key, and 404s an unknown subscriber", async () => {
    const { key } = await createEnvironment();
    for (const topic of ["s-b", "s-a", "s-c"]) await novu(key, "POST", `/v2/topics/${topic}/subscriptions`, { subscriptions: ["who"] });
    await novu(key, "POST", "/v2/topics/s-d/subscriptions", { subscriptions: ["someone-else"] });
    type Subs = CursorList<{ identifier: string; topic: { key: string; name: string }; subscriber: { _id: string; subscriberId: string } }>;
    const first = await novu<Subs>(key, "GET", "/v2/subscribers/who/subscriptions?limit=2");
    expect(first.body).toMatchObject({ totalCount: 3, next: "s-b", previous: null });
    expect(first.body.data.map((s) => s.topic.key)).toEqual(["s-a", "s-b"]);
    expect(first.body.data[0]).toMatchObject({
      identifier: "s-a:who",
      subscriber: { _id: expect.stringMatching(/^sub_/), subscriberId: "who" },
    });
    const rest = await novu<Subs>(key, "GET", `/v2/subscribers/who/subscriptions?limit=2&after=${first.body.next}`);
    expect(rest.body).toMatchObject({ data: [{ topic: { key: "s-c" } }], next: null });
    const one = await novu<Subs>(key, "GET", "/v2/subscribers/who/subscriptions?key=s-b");
    expect(one.body.data.map((s) => s.topic.key)).toEqual(["s-b"]);
    expect(await novu(key, "GET", "/v2/subscribers/nobody/subscriptions")).toMatchObject({
      status: 404,
      body: { code: "subscriber_not_found" },
    });
  });
});

describe("GET /v1/subscribers and /v1/topics for @novu/node (page numbers)", () => {
  it("pages subscribers from page 0 in Novu's shape", async () => {
    const { key, ids } = await withSubscribers(5);
    type Page = { page: number; pageSize: number; totalCount: number; hasMore: boolean; data: { subscriberId: string }[] };
    const p0 = await novu<Page>(key, "GET", "/v1/subscribers?page=0&limit=2", undefined, NOVU_NODE_AGENT);
    expect(p0.body).toMatchObject({ page: 0, pageSize: 2, totalCount: 5, hasMore: true });
    expect(p0.body.data.map((s) => s.subscriberId)).toEqual(ids.slice(0, 2));
    const p2 = await novu<Page>(key, "GET", "/v1/subscribers?page=2&limit=2", undefined, NOVU_NODE_AGENT);
    expect(p2.body).toMatchObject({ page: 2, hasMore: false, data: [{ subscriberId: ids[4] }] });
    expect(await novu(key, "GET", "/v1/subscribers?limit=101", undefined, NOVU_NODE_AGENT)).toMatchObject({
      status: 422,
      body: { statusCode: 422 },
    });
  });

  it("keeps Clarion's own list for other clients", async () => {
    const { key } = await withSubscribers(2);
    const res = await api<{ data: unknown[]; nextCursor: string | null }>(key, "GET", "/v1/subscribers?limit=1");
    expect(res.body).toMatchObject({ data: [{ subscriberId: "p-00" }], nextCursor: expect.any(String) });
    expect(res.body).not.toHaveProperty("page");
  });

  it("lists, gets and deletes topics in Novu's shape", async () => {
    const { key } = await createEnvironment();
    for (const k of ["n-a", "n-b", "n-c"]) await api(key, "POST", "/v1/topics", { key: k, name: k.toUpperCase() });
    await api(key, "POST", "/v1/topics/n-b/subscribers", { subscriberIds: ["y", "x"] });
    const page1 = await novu(key, "GET", "/v1/topics?page=1&pageSize=2", undefined, NOVU_NODE_AGENT);
    expect(page1.body).toMatchObject({ page: 1, pageSize: 2, totalCount: 3, data: [{ key: "n-c", name: "N-C", _id: expect.any(String) }] });
    const byKey = await novu(key, "GET", "/v1/topics?key=n-b", undefined, NOVU_NODE_AGENT);
    expect(byKey.body).toMatchObject({ totalCount: 1, data: [{ key: "n-b" }] });
    const got = await novu(key, "GET", "/v1/topics/n-b", undefined, NOVU_NODE_AGENT);
    expect(got.body).toEqual({
      data: {
        _id: expect.any(String),
        _organizationId: expect.any(String),
        _environmentId: expect.any(String),
        key: "n-b",
        name: "N-B",
        subscribers: ["x", "y"],
      },
    });
    expect((await novu(key, "DELETE", "/v1/topics/n-b", undefined, NOVU_NODE_AGENT)).status).toBe(204);
    expect(await novu(key, "GET", "/v1/topics/n-b", undefined, NOVU_NODE_AGENT)).toMatchObject({
      status: 404,
      body: { statusCode: 404, code: "topic_not_found" },
    });
    expect((await api(key, "GET", "/v1/topics/n-a")).body).toMatchObject({ key: "n-a", memberCount: 0 });
  });
});
