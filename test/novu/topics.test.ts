import { describe, expect, it } from "vitest";
import { createEnvironment, unique } from "../factories";
import { api } from "../request";
import { NOVU_NODE_AGENT, novu } from "./client";

const members = async (key: string, topic: string) =>
  (await api<{ data: { subscriberId: string }[] }>(key, "GET", `/v1/topics/${topic}/subscribers`)).body.data.map((m) => m.subscriberId);

describe("Novu v1 topics (@novu/node)", () => {
  it("creates, adds with { subscribers } and removes with /removal", async () => {
    const { key } = await createEnvironment();
    const topic = unique("news").toLowerCase();
    const created = await novu(key, "POST", "/v1/topics", { key: topic, name: "News" }, NOVU_NODE_AGENT);
    expect(created).toMatchObject({ status: 201, body: { data: { _id: expect.stringMatching(/^top_/), key: topic } } });
    const added = await novu(key, "POST", `/v1/topics/${topic}/subscribers`, { subscribers: ["a", "b", "c"] }, NOVU_NODE_AGENT);
    expect(added.body).toEqual({ data: { succeeded: ["a", "b", "c"], failed: {} } });
    expect((await novu(key, "POST", `/v1/topics/${topic}/subscribers/removal`, { subscribers: ["b"] })).status).toBe(204);
    expect(await members(key, topic)).toEqual(["a", "c"]);
  });

  it("keeps Clarion's own topic answers for other clients", async () => {
    const { key } = await createEnvironment();
    const topic = unique("news").toLowerCase();
    expect((await api(key, "POST", "/v1/topics", { key: topic, name: "News" })).body).toMatchObject({ id: expect.any(String), key: topic });
    expect((await api(key, "POST", `/v1/topics/${topic}/subscribers`, { subscriberIds: ["a"] })).body).toEqual({
      added: 1,
      alreadyMembers: 0,
      topic,
    });
  });

  it("answers an unknown topic with Novu's 404", async () => {
    const { key } = await createEnvironment();
    const res = await novu(key, "POST", "/v1/topics/nothing/subscribers", { subscribers: ["a"] });
    expect(res).toMatchObject({ status: 404, body: { statusCode: 404, code: "topic_not_found" } });
  });
});

describe("Novu v2 topics (@novu/api)", () => {
  it("upserts: 201 then 200 with the new name", async () => {
    const { key } = await createEnvironment();
    const topic = unique("t").toLowerCase();
    expect(await novu(key, "POST", "/v2/topics", { key: topic, name: "One" })).toMatchObject({
      status: 201,
      body: { data: { key: topic, name: "One" } },
    });
    expect(await novu(key, "POST", "/v2/topics", { key: topic, name: "Two" })).toMatchObject({
      status: 200,
      body: { data: { name: "Two" } },
    });
    expect((await novu(key, "GET", `/v2/topics/${topic}`)).body).toMatchObject({
      data: { _id: expect.any(String), key: topic, name: "Two" },
    });
  });

  it("subscribes (creating the topic) and unsubscribes", async () => {
    const { key } = await createEnvironment();
    const topic = unique("t").toLowerCase();
    const res = await novu(key, "POST", `/v2/topics/${topic}/subscriptions`, {
      subscriptions: ["a", { identifier: "x", subscriberId: "b" }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      data: [{ topic: { key: topic }, subscriber: { subscriberId: "a" } }, { subscriber: { subscriberId: "b" } }],
      meta: { totalCount: 2, successful: 2, failed: 0 },
    });
    const removed = await novu(key, "DELETE", `/v2/topics/${topic}/subscriptions`, { subscriptions: ["a"] });
    expect(removed).toMatchObject({ status: 200, body: { meta: { successful: 1 } } });
    expect(await members(key, topic)).toEqual(["b"]);
    expect((await novu(key, "DELETE", `/v2/topics/${topic}`)).body).toEqual({ data: { acknowledged: true } });
    expect((await novu(key, "GET", `/v2/topics/${topic}`)).status).toBe(404);
  });
});

describe("PATCH /v1/topics/{key}", () => {
  it("renames a topic", async () => {
    const { key } = await createEnvironment();
    const topic = unique("t").toLowerCase();
    await novu(key, "POST", "/v2/topics", { key: topic, name: "Old" });
    expect(await novu(key, "PATCH", `/v1/topics/${topic}`, { name: "New" }, NOVU_NODE_AGENT)).toMatchObject({
      status: 200,
      body: { data: { key: topic, name: "New" } },
    });
    expect((await novu(key, "PATCH", "/v1/topics/nothing", { name: "New" })).status).toBe(404);
  });
});

describe("PATCH /v2/topics/{key} (@novu/api topics.update)", () => {
  it("renames, keeps the name without one, and 404s an unknown topic", async () => {
    const { key } = await createEnvironment();
    const topic = unique("t").toLowerCase();
    await novu(key, "POST", "/v2/topics", { key: topic, name: "Old" });
    expect(await novu(key, "PATCH", `/v2/topics/${topic}`, { name: "New", data: { a: 1 } })).toMatchObject({
      status: 200,
      body: { data: { key: topic, name: "New" } },
    });
    expect((await novu(key, "PATCH", `/v2/topics/${topic}`, {})).body).toMatchObject({ data: { name: "New" } });
    expect((await api(key, "GET", `/v1/topics/${topic}`)).body).toMatchObject({ name: "New" });
    expect(await novu(key, "PATCH", "/v2/topics/nothing", { name: "New" })).toMatchObject({ status: 404, body: { statusCode: 404 } });
  });
});

describe("GET /v1/topics/{key}/subscribers/{subscriberId} (getSubscriber, checkSubscriber, topics.subscribers.retrieve)", () => {
  it("answers the membership of a member and 404s anyone else", async () => {
    const { id, key } = await createEnvironment();
    const topic = unique("t").toLowerCase();
    await novu(key, "POST", `/v2/topics/${topic}/subscriptions`, { subscriptions: ["in"] });
    await api(key, "POST", "/sub", { subscriberId: "out" });
    const res = await novu(key, "GET", `/v1/topics/${topic}/subscribers/in`, undefined, NOVU_NODE_AGENT);
    expect(res).toMatchObject({
      status: 200,
      body: {
        data: {
          _organizationId: id,
          _environmentId: id,
          _subscriberId: expect.stringMatching(/^sub_/),
          _topicId: expect.stringMatching(/^top_/),
          topicKey: topic,
          externalSubscriberId: "in",
        },
      },
    });
    expect(await novu(key, "GET", `/v1/topics/${topic}/subscribers/out`)).toMatchObject({ status: 404, body: { statusCode: 404 } });
    expect((await novu(key, "GET", "/v1/topics/nothing/subscribers/in")).status).toBe(404);
  });
});
