import { describe, expect, it } from "vitest";
import type { SubscriberDetail } from "../../src/features/subscribers/schemas";
import { createEnvironment, unique } from "../factories";
import { api, expectProblem } from "../request";
import { NOVU_NODE_AGENT, novu } from "./client";

const NOVU_SUBSCRIBER = {
  _id: expect.stringMatching(/^sub_/),
  _organizationId: expect.any(String),
  _environmentId: expect.any(String),
  deleted: false,
  createdAt: expect.any(String),
  updatedAt: expect.any(String),
};

const native = (key: string, id: string) => api<SubscriberDetail>(key, "GET", `/v1/subscribers/${id}`);

describe("POST /v1/subscribers (@novu/node identify)", () => {
  it("creates with Novu's channels list, answers 201 in Novu's shape", async () => {
    const { id, key } = await createEnvironment();
    const subscriberId = unique("ada");
    const res = await novu(
      key,
      "POST",
      "/v1/subscribers",
      {
        subscriberId,
        email: "ada@example.com",
        firstName: "Ada",
        channels: [
          { providerId: "fcm", credentials: { deviceTokens: ["t1", "t2"] } },
          { providerId: "slack", credentials: { webhookUrl: "https://hooks.slack.com/services/x" } },
        ],
      },
      NOVU_NODE_AGENT,
    );
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: expect.objectContaining({
        ...NOVU_SUBSCRIBER,
        _environmentId: id,
        subscriberId,
        email: "ada@example.com",
        channels: [
          // Masked as every read shows them (issue 21 item 7).
          { providerId: "fcm", credentials: { deviceTokens: ["••••", "••••"] }, _integrationId: "fcm" },
          { providerId: "slack", credentials: { webhookUrl: "http••••" }, _integrationId: "slack" },
        ],
      }),
    });
    expect((await native(key, subscriberId)).body).toMatchObject({
      firstName: "Ada",
      channels: { push: [{ provider: "fcm" }, { provider: "fcm" }] },
    });
  });

  it("refuses a providerId Clarion cannot deliver to", async () => {
    const { key } = await createEnvironment();
    const res = await novu(key, "POST", "/v1/subscribers", {
      subscriberId: unique("s"),
      channels: [{ providerId: "zulip", credentials: { webhookUrl: "https://z.example.com" } }],
    });
    expect(res).toMatchObject({
      status: 422,
      body: { statusCode: 422, errors: { "channels.0.providerId": { messages: [expect.any(String)] } } },
    });
  });
});

describe("POST /v1/subscribers/bulk", () => {
  it("answers Novu's created, updated and failed lists", async () => {
    const { key } = await createEnvironment();
    const [a, b] = [unique("a"), unique("b")];
    await novu(key, "POST", "/v1/subscribers", { subscriberId: a });
    const res = await novu(key, "POST", "/v1/subscribers/bulk", {
      subscribers: [{ subscriberId: a, firstName: "A" }, { subscriberId: b }, { subscriberId: "bad", email: "not-an-email" }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: {
        created: [{ subscriberId: b }],
        updated: [{ subscriberId: a }],
        failed: [{ subscriberId: "bad", message: expect.stringContaining("email") }],
      },
    });
  });
});

describe("PUT /v1/subscribers/{id} and PATCH /v2/subscribers/{id}", () => {
  it.each([
    ["PUT", "/v1/subscribers/"],
    ["PATCH", "/v2/subscribers/"],
  ])("%s updates the given fields and keeps the rest", async (method, prefix) => {
    const { key } = await createEnvironment();
    const subscriberId = unique("s");
    await novu(key, "POST", "/v2/subscribers", { subscriberId, email: "a@example.com", firstName: "A" });
    const res = await novu(key, method, `${prefix}${subscriberId}`, { lastName: "B" });
    expect(res).toMatchObject({ status: 200, body: { data: { subscriberId, email: "a@example.com", firstName: "A", lastName: "B" } } });
  });

  it("answers 404 for an unknown subscriber", async () => {
    const { key } = await createEnvironment();
    const res = await novu(key, "PATCH", "/v2/subscribers/nobody", { firstName: "X" });
    expect(res).toMatchObject({ status: 404, body: { statusCode: 404, code: "subscriber_not_found" } });
  });
});

describe("POST /v2/subscribers", () => {
  it("with failIfExists answers 409 with the existing subscriber and Novu's error fields", async () => {
    const { key } = await createEnvironment();
    const subscriberId = unique("s");
    expect((await novu(key, "POST", "/v2/subscribers?failIfExists=true", { subscriberId, firstName: "A" })).status).toBe(201);
    const res = await novu(key, "POST", "/v2/subscribers?failIfExists=true", { subscriberId, firstName: "B" });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ ...NOVU_SUBSCRIBER, subscriberId, firstName: "A", statusCode: 409, code: "subscriber_exists" });
  });

  it("without failIfExists updates", async () => {
    const { key } = await createEnvironment();
    const subscriberId = unique("s");
    await novu(key, "POST", "/v2/subscribers", { subscriberId, firstName: "A" });
    expect((await novu(key, "POST", "/v2/subscribers", { subscriberId, firstName: "B" })).body).toMatchObject({ data: { firstName: "B" } });
  });
});

describe("GET and DELETE of one subscriber", () => {
  it("answers Novu's shape on /v1 to a Novu SDK and Clarion's to anyone else", async () => {
    const { key } = await createEnvironment();
    const subscriberId = unique("s");
    await novu(key, "POST", "/v1/subscribers", {
      subscriberId,
      channels: [{ providerId: "expo", credentials: { deviceTokens: ["ExponentPushToken[abcdefghij]"] } }],
    });
    const novuAnswer = await novu(key, "GET", `/v1/subscribers/${subscriberId}`, undefined, NOVU_NODE_AGENT);
    expect(novuAnswer.body).toMatchObject({ data: { ...NOVU_SUBSCRIBER, subscriberId, channels: [{ providerId: "expo" }] } });
    const nativeAnswer = await native(key, subscriberId);
    expect(nativeAnswer.body).toMatchObject({ subscriberId, preferences: expect.any(Object), topics: [] });
    expect(nativeAnswer.body).not.toHaveProperty("_id");
  });

  it.each(["/v1/subscribers/", "/v2/subscribers/"])("DELETE %s erases and answers Novu's acknowledgement", async (prefix) => {
    const { key } = await createEnvironment();
    const subscriberId = unique("s");
    await novu(key, "POST", "/v2/subscribers", { subscriberId });
    expect((await novu(key, "DELETE", `${prefix}${subscriberId}`)).body).toEqual({ data: { acknowledged: true, status: "deleted" } });
    expectProblem(await native(key, subscriberId), 404, "subscriber_not_found");
    expect((await novu(key, "GET", `/v2/subscribers/${subscriberId}`)).status).toBe(404);
  });

  it("keeps Clarion's DELETE answer for other clients", async () => {
    const { key } = await createEnvironment();
    const subscriberId = unique("s");
    await novu(key, "POST", "/v2/subscribers", { subscriberId });
    expect((await api(key, "DELETE", `/v1/subscribers/${subscriberId}`)).body).toMatchObject({ subscriberId, erased: { profile: true } });
  });
});

describe("credentials", () => {
  it("PUT replaces one provider's tokens, PATCH appends, DELETE removes; other providers stay", async () => {
    const { key } = await createEnvironment();
    const subscriberId = unique("s");
    await novu(key, "POST", "/v1/subscribers", {
      subscriberId,
      channels: [
        { providerId: "fcm", credentials: { deviceTokens: ["old"] } },
        { providerId: "discord", credentials: { webhookUrl: "https://discord.com/api/webhooks/1/x" } },
      ],
    });
    const path = `/v1/subscribers/${subscriberId}/credentials`;
    const put = await novu(key, "PUT", path, {
      providerId: "fcm",
      credentials: { deviceTokens: ["new1"] },
      integrationIdentifier: "fcm-main",
    });
    expect(put.status).toBe(200);
    await novu(key, "PATCH", path, { providerId: "fcm", credentials: { deviceTokens: ["new2", "new1"] } });
    await novu(key, "PUT", path, { providerId: "one-signal", credentials: { deviceTokens: ["player-1"] } });
    await novu(key, "PUT", path, { providerId: "slack", credentials: { channel: "C0123ABCD" } });
    const full = (await native(key, subscriberId)).body.channels;
    expect(full.push.map((p) => p.provider).sort()).toEqual(["fcm", "fcm", "onesignal"]);
    expect(full.chat.map((c) => c.provider).sort()).toEqual(["discord", "slack-api"]);
    expect((await novu(key, "DELETE", `${path}/fcm`)).status).toBe(204);
    expect((await native(key, subscriberId)).body.channels.push.map((p) => p.provider)).toEqual(["onesignal"]);
  });

  it("answers 404 for an unknown subscriber and 422 for an unknown provider", async () => {
    const { key } = await createEnvironment();
    expect(
      (await novu(key, "PUT", "/v1/subscribers/nobody/credentials", { providerId: "fcm", credentials: { deviceTokens: ["t"] } })).status,
    ).toBe(404);
    await novu(key, "POST", "/v2/subscribers", { subscriberId: "somebody" });
    expect(
      (await novu(key, "PUT", "/v1/subscribers/somebody/credentials", { providerId: "pushpad", credentials: { deviceTokens: ["t"] } }))
        .status,
    ).toBe(422);
  });
});

describe("preferences", () => {
  it("v2 PATCH sets global and per-workflow flags that Clarion's preferences show", async () => {
    const { key } = await createEnvironment();
    const subscriberId = unique("s");
    await novu(key, "POST", "/v2/subscribers", { subscriberId });
    const path = `/v2/subscribers/${subscriberId}/preferences`;
    await novu(key, "PATCH", path, { channels: { sms: false, in_app: false } });
    const res = await novu(key, "PATCH", path, { channels: { email: false }, workflowId: "order-shipped" });
    expect(res.body).toMatchObject({
      data: {
        global: { enabled: true, channels: { email: true, sms: false, push: true, chat: true } },
        workflows: [{ workflow: { identifier: "order-shipped" }, channels: { email: false, sms: false } }],
      },
    });
    expect((await novu(key, "GET", path)).body).toEqual(res.body);
    expect((await api(key, "GET", `/v1/subscribers/${subscriberId}/preferences`)).body).toMatchObject({
      channels: { sms: false },
      workflows: { "order-shipped": { email: false } },
    });
  });

  it("v1 PATCH of global and workflow preferences, and Novu's v1 list to a Novu SDK", async () => {
    const { key } = await createEnvironment();
    const subscriberId = unique("s");
    await novu(key, "POST", "/v1/subscribers", { subscriberId });
    await novu(key, "PATCH", `/v1/subscribers/${subscriberId}/preferences`, { preferences: [{ type: "push", enabled: false }] });
    await novu(key, "PATCH", `/v1/subscribers/${subscriberId}/preferences/weekly-digest`, { enabled: false });
    const list = await novu(key, "GET", `/v1/subscribers/${subscriberId}/preferences`, undefined, NOVU_NODE_AGENT);
    expect(list.body).toEqual({
      data: [
        {
          template: { _id: "weekly-digest", name: "weekly-digest", critical: false },
          preference: { enabled: false, channels: { email: false, sms: false, push: false, chat: false, in_app: true } },
        },
      ],
    });
    expect((await api(key, "GET", `/v1/subscribers/${subscriberId}/preferences`)).body).toMatchObject({ channels: { push: false } });
  });
});

describe("GET /v1/subscribers/{id}/preferences/{level}", () => {
  it("answers the global flags at `global` and the workflow list otherwise", async () => {
    const { key } = await createEnvironment();
    const subscriberId = unique("s");
    await novu(key, "POST", "/v1/subscribers", { subscriberId });
    await novu(key, "PATCH", `/v1/subscribers/${subscriberId}/preferences`, { enabled: false });
    const global = await novu(key, "GET", `/v1/subscribers/${subscriberId}/preferences/global`);
    expect(global.body).toEqual({
      data: [{ preference: { enabled: true, channels: { email: false, sms: false, push: false, chat: false, in_app: true } } }],
    });
    expect((await novu(key, "GET", `/v1/subscribers/${subscriberId}/preferences/template`)).body).toEqual({ data: [] });
  });
});
