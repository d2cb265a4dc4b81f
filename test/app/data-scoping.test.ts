import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { dataFor } from "../../src/features/data";
import { createEnvironment } from "../factories";
import { api, expectProblem } from "../request";

// Two environments holding the same subscriberId, topic key and workflow key with different
// contents: whatever reads through one environment's data must never see the other's.
let a: Awaited<ReturnType<typeof createEnvironment>>;
let b: Awaited<ReturnType<typeof createEnvironment>>;
const shared = "shared-id";
const onlyInA = "only-in-a";

beforeAll(async () => {
  [a, b] = await Promise.all([createEnvironment(), createEnvironment()]);
  for (const [environment, label] of [
    [a, "a"],
    [b, "b"],
  ] as const) {
    expect((await api(environment.key, "POST", "/sub", { subscriberId: shared, email: `${label}@example.com` })).status).toBe(201);
    expect((await api(environment.key, "POST", "/v1/topics", { key: shared, name: `Topic ${label}` })).status).toBe(201);
  }
  expect((await api(a.key, "POST", "/sub", { subscriberId: onlyInA, email: "only@example.com" })).status).toBe(201);
});

describe("dataFor(db, environmentId)", () => {
  const data = (environmentId: string) => dataFor(createDb(env.DB), environmentId, env.ENCRYPTION_KEY, new LogStore(env));

  it("finds a subscriber of its own environment only", async () => {
    expect((await data(a.id).subscribers.find(shared))?.email).toBe("a@example.com");
    expect((await data(b.id).subscribers.find(shared))?.email).toBe("b@example.com");
    expect(await data(b.id).subscribers.find(onlyInA)).toBeNull();
    expect(await data(b.id).subscribers.internalId(onlyInA)).toBeUndefined();
  });

  it("lists the subscribers of its own environment only", async () => {
    const listed = await data(b.id).subscribers.list({ limit: 100 });
    expect(listed.data.map((s) => s.subscriberId)).toEqual([shared]);
  });

  it("finds a topic of its own environment only", async () => {
    expect((await data(a.id).topics.find(shared))?.name).toBe("Topic a");
    expect((await data(b.id).topics.find(shared))?.name).toBe("Topic b");
  });

  it("gives each environment its own Inbox settings", async () => {
    const [settingsA, settingsB] = await Promise.all([data(a.id).inAppSettings.get(), data(b.id).inAppSettings.get()]);
    expect(settingsA.environmentId).toBe(a.id);
    expect(settingsB.environmentId).toBe(b.id);
    expect(settingsA.applicationIdentifier).not.toBe(settingsB.applicationIdentifier);
  });
});

describe("c.var.data", () => {
  it("binds a request to its key's environment", async () => {
    const res = await api<{ email: string }>(b.key, "GET", `/v1/subscribers/${shared}`);
    expect(res.status).toBe(200);
    expect(res.body.email).toBe("b@example.com");
  });

  it("answers 404 for another environment's subscriber", async () => {
    expectProblem(await api(b.key, "GET", `/v1/subscribers/${onlyInA}`), 404, "subscriber_not_found");
  });

  it("lists only its environment's members of a topic key both environments use", async () => {
    expect((await api(a.key, "POST", `/v1/topics/${shared}/subscribers`, { subscriberIds: [onlyInA] })).status).toBe(200);
    const inA = await api<{ data: { subscriberId: string }[] }>(a.key, "GET", `/v1/topics/${shared}/subscribers`);
    const inB = await api<{ data: { subscriberId: string }[] }>(b.key, "GET", `/v1/topics/${shared}/subscribers`);
    expect(inA.body.data.map((m) => m.subscriberId)).toEqual([onlyInA]);
    expect(inB.body.data).toEqual([]);
  });
});
