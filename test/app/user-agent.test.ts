// No answer depends on who the caller claims to be: the paths Clarion's API once shared with the
// Novu adapter answer in Clarion's shapes to axios (the User-Agent `@novu/node` sends, and every
// Node team's) and to a Novu SDK's own User-Agent alike. Novu's answers live under /novu.
import { beforeAll, describe, expect, it } from "vitest";
import { createEnvironment, unique } from "../factories";
import { api, expectProblem } from "../request";

const AGENTS = [
  ["axios", "axios/1.7.9"],
  ["@novu/api", "speakeasy-sdk/typescript 3.19.1 2.933.0 3.19.0 @novu/api"],
  ["@novu/node", "@novu/node"],
  ["none", undefined],
] as const;

describe.each(AGENTS)("Clarion's own API, called with the User-Agent of %s", (_, agent) => {
  let key: string;
  const subscriberId = unique("ua-sub");
  const topic = unique("ua-topic").toLowerCase();
  const call = <T = Record<string, unknown>>(method: string, path: string, body?: unknown, withKey = true) =>
    api<T>(withKey ? key : null, method, path, body, { headers: agent ? { "user-agent": agent } : {} });

  beforeAll(async () => {
    key = (await createEnvironment()).key;
    expect((await api(key, "POST", "/sub", { subscriberId, email: "ada@example.com", firstName: "Ada" })).status).toBe(201);
  });

  it("GET /v1/subscribers answers Clarion's cursor list", async () => {
    const res = await call("GET", "/v1/subscribers?limit=10");
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(["data", "nextCursor"]);
    expect(res.body.data).toEqual([expect.objectContaining({ subscriberId, email: "ada@example.com" })]);
  });

  it("GET /v1/subscribers/{id} answers Clarion's subscriber", async () => {
    const res = await call("GET", `/v1/subscribers/${subscriberId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ subscriberId, firstName: "Ada", topics: [], preferences: expect.any(Object) });
    expect(res.body).not.toHaveProperty("_id");
    expect(res.body).not.toHaveProperty("_environmentId");
  });

  it("GET /v1/subscribers/{id}/preferences answers Clarion's preferences", async () => {
    const res = await call("GET", `/v1/subscribers/${subscriberId}/preferences`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ channels: expect.any(Object), workflows: {} });
  });

  it("an unknown subscriber is a problem document", async () => {
    expectProblem(await call("GET", "/v1/subscribers/nobody-here"), 404, "subscriber_not_found");
  });

  it("a missing key is a problem document", async () => {
    expectProblem(await call("GET", "/v1/subscribers", undefined, false), 401, "unauthorized");
  });

  it("POST and GET /v1/topics answer Clarion's topic and list", async () => {
    const created = await call("POST", "/v1/topics", { key: topic, name: "News" });
    expect(created).toMatchObject({ status: 201, body: { id: expect.stringMatching(/^top_/), key: topic, name: "News" } });
    expect(created.body).not.toHaveProperty("data");
    const listed = await call("GET", `/v1/topics?limit=10`);
    expect(Object.keys(listed.body).sort()).toEqual(["data", "nextCursor"]);
  });

  it("POST /v1/topics/{key}/subscribers takes Clarion's body only, and GET /v1/topics/{key} answers Clarion's topic", async () => {
    const added = await call("POST", `/v1/topics/${topic}/subscribers`, { subscriberIds: [subscriberId] });
    expect(added.body).toEqual({ added: 1, alreadyMembers: 0, topic });
    expectProblem(await call("POST", `/v1/topics/${topic}/subscribers`, { subscribers: [subscriberId] }), 422, "validation_failed");
    expect((await call("GET", `/v1/topics/${topic}`)).body).toMatchObject({ key: topic, memberCount: 1 });
  });

  it("POST /v1/topics with an empty body is a 4xx problem document, never a 500", async () => {
    for (const init of [{ rawBody: "" }, { rawBody: "", headers: { "content-type": "application/json" } }]) {
      const res = await api(key, "POST", "/v1/topics", undefined, {
        ...init,
        headers: { ...init.headers, ...(agent ? { "user-agent": agent } : {}) },
      });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.status).toBeLessThan(500);
      expect(res.headers.get("content-type")).toMatch(/^application\/problem\+json/);
    }
  });

  it("Novu's paths are not served beside Clarion's", async () => {
    expectProblem(await call("GET", `/v1/topics/${topic}/subscribers/${subscriberId}`), 404, "not_found");
    expectProblem(await call("POST", "/v1/events/trigger", { name: "x", to: subscriberId }), 404, "not_found");
  });

  it("DELETE /v1/subscribers/{id} answers Clarion's erasure", async () => {
    const res = await call("DELETE", `/v1/subscribers/${subscriberId}`);
    expect(res).toMatchObject({ status: 200, body: { subscriberId, erased: expect.objectContaining({ profile: true }) } });
    expect(res.body).not.toHaveProperty("data");
  });
});
