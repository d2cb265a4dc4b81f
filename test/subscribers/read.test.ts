import { beforeAll, describe, expect, it } from "vitest";
import type { SubscriberDetail, SubscriberList } from "../../src/features/subscribers/schemas";
import { createEnvironment, unique } from "../factories";
import { api, errorPaths, expectProblem } from "../request";

let environment: { id: string; key: string };
beforeAll(async () => {
  environment = await createEnvironment();
});

const upsert = async (body: Record<string, unknown>, key = environment.key) => {
  const res = await api(key, "POST", "/sub", body);
  if (res.status !== 201 && res.status !== 200) throw new Error(`upsert answered ${res.status}`);
};
const list = (query: string, key = environment.key) => api<SubscriberList>(key, "GET", `/v1/subscribers?${query}`);
const ids = (res: { body: SubscriberList }) => res.body.data.map((s) => s.subscriberId);

describe("GET /v1/subscribers/{subscriberId}", () => {
  it("answers the profile, masked channel addresses, preferences and topics", async () => {
    const subscriberId = unique("detail");
    await upsert({
      subscriberId,
      email: "ada@example.com",
      firstName: "Ada",
      channels: {
        push: [{ provider: "fcm", token: "fcm-device-token-0123456789" }],
        chat: [
          { provider: "slack", webhookUrl: "https://hooks.slack.com/services/T000/B000/XXXXXXXX" },
          { provider: "slack-api", channelId: "C0123ABCD" },
        ],
      },
    });
    await api(environment.key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, { channels: { sms: false } });
    const topic = unique("topic").toLowerCase();
    await api(environment.key, "POST", "/v1/topics", { key: topic, name: "Topic" });
    await api(environment.key, "POST", `/v1/topics/${topic}/subscribers`, { subscriberIds: [subscriberId] });

    const res = await api<SubscriberDetail>(environment.key, "GET", `/v1/subscribers/${subscriberId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      subscriberId,
      email: "ada@example.com",
      firstName: "Ada",
      channels: {
        push: [{ provider: "fcm", token: "fcm-••••" }],
        chat: expect.arrayContaining([
          { provider: "slack", webhookUrl: "http••••" },
          { provider: "slack-api", channelId: "C0123ABCD" },
        ]),
      },
      preferences: {
        channels: { email: true, sms: false, push: true, chat: true, in_app: true },
        workflows: {},
        quietHours: null,
        schedule: null,
      },
      topics: [topic],
    });
    expect(JSON.stringify(res.body)).not.toContain("fcm-device-token");
    expect(JSON.stringify(res.body)).not.toContain("XXXXXXXX");
  });

  it.each(["GET", "DELETE"])("rejects a subscriberId longer than 256 characters in %s with 422", async (method) => {
    const res = await api(environment.key, method, `/v1/subscribers/${"x".repeat(257)}`);
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual(["subscriberId"]);
  });

  it("answers 404 subscriber_not_found for an unknown subscriber", async () => {
    const res = await api(environment.key, "GET", `/v1/subscribers/${unique("nobody")}`);
    expectProblem(res, 404, "subscriber_not_found");
  });
});

describe("GET /v1/subscribers", () => {
  it("pages through every subscriber by subscriberId with nextCursor", async () => {
    const { key } = await createEnvironment();
    const all = ["a-1", "a-2", "b-1", "b-2", "c-1"];
    for (const subscriberId of all) await upsert({ subscriberId }, key);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await list(`limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`, key);
      expect(res.status).toBe(200);
      seen.push(...ids(res));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });

  it("filters by exact email", async () => {
    const subscriberId = unique("mail");
    const email = `${subscriberId}@example.com`;
    await upsert({ subscriberId, email });
    await upsert({ subscriberId: unique("other"), email: `x${email}` });
    expect(ids(await list(`email=${encodeURIComponent(email)}`))).toEqual([subscriberId]);
  });

  it("filters by exact phone", async () => {
    const { key } = await createEnvironment();
    await upsert({ subscriberId: "with-phone", phone: "+41791234567" }, key);
    await upsert({ subscriberId: "other-phone", phone: "+41791234568" }, key);
    expect(ids(await list(`phone=${encodeURIComponent("+41791234567")}`, key))).toEqual(["with-phone"]);
  });

  it.each([
    ["part of the subscriberId", "RDER-4"],
    ["part of the first name", "grac"],
    ["part of the last name", "HOPP"],
    ["the full name", "grace hopper"],
  ])("finds a subscriber by q: %s", async (_, q) => {
    const { key } = await createEnvironment();
    await upsert({ subscriberId: "order-42", firstName: "Grace", lastName: "Hopper" }, key);
    await upsert({ subscriberId: "someone-else", firstName: "Ada", lastName: "Lovelace" }, key);
    expect(ids(await list(`q=${encodeURIComponent(q)}`, key))).toEqual(["order-42"]);
  });

  it("treats % and _ in q as literal characters", async () => {
    const { key } = await createEnvironment();
    await upsert({ subscriberId: "100%_sure" }, key);
    await upsert({ subscriberId: "100-sure" }, key);
    expect(ids(await list(`q=${encodeURIComponent("0%_")}`, key))).toEqual(["100%_sure"]);
  });

  it("filters by updatedSince", async () => {
    const { key } = await createEnvironment();
    await upsert({ subscriberId: "old" }, key);
    await new Promise((r) => setTimeout(r, 20));
    const since = new Date().toISOString();
    await new Promise((r) => setTimeout(r, 20));
    await upsert({ subscriberId: "new" }, key);
    await upsert({ subscriberId: "changed" }, key);
    await upsert({ subscriberId: "old", firstName: "Updated" }, key);
    expect(ids(await list(`updatedSince=${encodeURIComponent(since)}`, key))).toEqual(["changed", "new", "old"]);
  });

  it.each([
    ["a cursor that is not one", "cursor=not-a-cursor!", "cursor"],
    ["a cursor of another list", `cursor=${btoa("1700000000000:msg_1")}`, "cursor"],
    ["an updatedSince that is not a time", "updatedSince=yesterday", "updatedSince"],
    ["an updatedSince without a zone", "updatedSince=2026-01-01T00%3A00%3A00", "updatedSince"],
    ["a q longer than 100 characters", `q=${"x".repeat(101)}`, "q"],
    ["a limit of 0", "limit=0", "limit"],
    ["a limit above 200", "limit=201", "limit"],
  ])("rejects %s with 422 validation_failed", async (_, query, path) => {
    const res = await list(query);
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toContain(path);
  });
});

describe("subscribers of another environment", () => {
  let owner: { id: string; key: string };
  let other: { id: string; key: string };
  const subscriberId = unique("private");
  beforeAll(async () => {
    owner = await createEnvironment();
    other = await createEnvironment();
    await upsert({ subscriberId, email: "private@example.com", phone: "+41790000001" }, owner.key);
  });

  it("cannot be read", async () => {
    expectProblem(await api(other.key, "GET", `/v1/subscribers/${subscriberId}`), 404, "subscriber_not_found");
  });

  it("are not listed, whatever the filter", async () => {
    for (const query of ["", "q=private", "email=private%40example.com", "phone=%2B41790000001"]) {
      expect(ids(await list(query, other.key))).toEqual([]);
    }
  });

  it("cannot be erased, and stay untouched", async () => {
    expectProblem(await api(other.key, "DELETE", `/v1/subscribers/${subscriberId}`), 404, "subscriber_not_found");
    const res = await api<SubscriberDetail>(owner.key, "GET", `/v1/subscribers/${subscriberId}`);
    expect(res.body).toMatchObject({ subscriberId, email: "private@example.com" });
  });
});
