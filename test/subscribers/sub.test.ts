import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { findSubscriber } from "../../src/features/subscribers/repository";
import type { Subscriber } from "../../src/features/subscribers/schemas";
import { createEnvironment, subscriberRow, unique } from "../factories";
import { api, errorPaths, expectProblem } from "../request";

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

let environment: { id: string; key: string };
beforeAll(async () => {
  environment = await createEnvironment();
});

const upsert = (body: unknown, path = "/sub") => api<Subscriber>(environment.key, "POST", path, body);
/** The addresses as stored: every answer masks them. */
async function stored(subscriberId: string) {
  const found = await findSubscriber(createDb(env.DB), environment.id, subscriberId);
  if (!found) throw new Error(`${subscriberId} was not stored`);
  return found.channels;
}

describe("POST /sub", () => {
  it("creates a subscriber and answers 201 with the stored subscriber", async () => {
    const subscriberId = unique("sub");
    const res = await upsert({
      subscriberId,
      email: "ada@example.com",
      phone: "+41791234567",
      firstName: "Ada",
      lastName: "Lovelace",
      avatar: "https://example.com/ada.png",
      locale: "de-CH",
      timezone: "Europe/Zurich",
      data: { plan: "pro", seats: 3 },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      subscriberId,
      email: "ada@example.com",
      phone: "+41791234567",
      firstName: "Ada",
      lastName: "Lovelace",
      avatar: "https://example.com/ada.png",
      locale: "de-CH",
      timezone: "Europe/Zurich",
      data: { plan: "pro", seats: 3 },
      channels: { push: [], chat: [] },
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    expect(await subscriberRow(environment.id, subscriberId)).toMatchObject({ email: "ada@example.com", first_name: "Ada" });
  });

  it("creates a subscriber from its subscriberId alone, every other field null", async () => {
    const subscriberId = unique("sub");
    const res = await upsert({ subscriberId });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      subscriberId,
      email: null,
      phone: null,
      firstName: null,
      data: null,
      channels: { push: [], chat: [] },
    });
  });

  it("answers 200 when the subscriber already exists", async () => {
    const subscriberId = unique("sub");
    const created = await upsert({ subscriberId, email: "a@example.com" });
    expect(created.status).toBe(201);
    const updated = await upsert({ subscriberId, email: "b@example.com" });
    expect(updated.status).toBe(200);
    expect(updated.body.email).toBe("b@example.com");
    expect(updated.body.createdAt).toBe(created.body.createdAt);
    expect(Date.parse(updated.body.updatedAt)).toBeGreaterThan(Date.parse(created.body.createdAt));
  });

  it("answers at /sub/ as well", async () => {
    const subscriberId = unique("sub");
    const res = await upsert({ subscriberId }, "/sub/");
    expect(res.status).toBe(201);
    expect(res.body.subscriberId).toBe(subscriberId);
  });

  it("keeps the value of fields left out of an update", async () => {
    const subscriberId = unique("sub");
    await upsert({ subscriberId, email: "keep@example.com", firstName: "Kim", locale: "fr", data: { a: 1 } });
    const res = await upsert({ subscriberId, lastName: "Doe" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: "keep@example.com", firstName: "Kim", lastName: "Doe", locale: "fr", data: { a: 1 } });
  });

  it("clears fields set to null", async () => {
    const subscriberId = unique("sub");
    await upsert({ subscriberId, email: "x@example.com", phone: "+14155550100", firstName: "Xi", data: { a: 1 } });
    const res = await upsert({ subscriberId, email: null, phone: null, data: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ email: null, phone: null, data: null, firstName: "Xi" });
    expect(await subscriberRow(environment.id, subscriberId)).toMatchObject({ email: null, phone: null, data: null });
  });

  it("trims the subscriberId", async () => {
    const subscriberId = unique("sub");
    const res = await upsert({ subscriberId: `  ${subscriberId}  ` });
    expect(res.status).toBe(201);
    expect(res.body.subscriberId).toBe(subscriberId);
  });

  describe("channels", () => {
    it("answers push tokens and webhook URLs masked, as GET does", async () => {
      const subscriberId = unique("sub");
      const token = "fcm-device-token-0123456789";
      const webhookUrl = "https://hooks.slack.com/services/T000/B000/XXXXXXXX";
      const body = { subscriberId, channels: { push: [{ provider: "fcm", token }], chat: [{ provider: "slack", webhookUrl }] } };
      const created = await upsert(body);
      const updated = await upsert(body);
      const read = await api<Subscriber>(environment.key, "GET", `/v1/subscribers/${subscriberId}`);
      for (const res of [created, updated]) {
        expect(res.body.channels).toEqual({
          push: [{ provider: "fcm", token: "fcm-••••" }],
          chat: [{ provider: "slack", webhookUrl: "http••••" }],
        });
        expect(res.body.channels).toEqual(read.body.channels);
        expect(JSON.stringify(res.body)).not.toContain("device-token");
        expect(JSON.stringify(res.body)).not.toContain("XXXXXXXX");
      }
    });

    it("stores push tokens and chat webhooks", async () => {
      const subscriberId = unique("sub");
      const res = await upsert({
        subscriberId,
        channels: {
          push: [
            { provider: "fcm", token: "t-1" },
            { provider: "apns", token: "t-2" },
          ],
          chat: [{ provider: "slack", webhookUrl: "https://hooks.slack.com/services/T/B/X" }],
        },
      });
      expect(res.status).toBe(201);
      expect((await stored(subscriberId)).push).toEqual(
        expect.arrayContaining([
          { provider: "fcm", token: "t-1" },
          { provider: "apns", token: "t-2" },
        ]),
      );
      expect((await stored(subscriberId)).push).toHaveLength(2);
      expect((await stored(subscriberId)).chat).toEqual([{ provider: "slack", webhookUrl: "https://hooks.slack.com/services/T/B/X" }]);
    });

    it("replaces a channel's addresses with the list given", async () => {
      const subscriberId = unique("sub");
      await upsert({
        subscriberId,
        channels: {
          push: [
            { provider: "fcm", token: "old-1" },
            { provider: "fcm", token: "old-2" },
          ],
        },
      });
      const res = await upsert({ subscriberId, channels: { push: [{ provider: "fcm", token: "new-1" }] } });
      expect(res.status).toBe(200);
      expect((await stored(subscriberId)).push).toEqual([{ provider: "fcm", token: "new-1" }]);
    });

    it("replaces chat webhooks with the list given", async () => {
      const subscriberId = unique("sub");
      await upsert({ subscriberId, channels: { chat: [{ provider: "slack", webhookUrl: "https://example.com/old" }] } });
      await upsert({ subscriberId, channels: { chat: [{ provider: "discord", webhookUrl: "https://example.com/new" }] } });
      expect((await stored(subscriberId)).chat).toEqual([{ provider: "discord", webhookUrl: "https://example.com/new" }]);
    });

    it("clears a channel set to null and keeps the other", async () => {
      const subscriberId = unique("sub");
      await upsert({
        subscriberId,
        channels: { push: [{ provider: "fcm", token: "t-1" }], chat: [{ provider: "slack", webhookUrl: "https://example.com/c" }] },
      });
      await upsert({ subscriberId, channels: { push: null } });
      expect(await stored(subscriberId)).toEqual({ push: [], chat: [{ provider: "slack", webhookUrl: "https://example.com/c" }] });
    });

    it("clears a channel given an empty list", async () => {
      const subscriberId = unique("sub");
      await upsert({ subscriberId, channels: { chat: [{ provider: "slack", webhookUrl: "https://example.com/c" }] } });
      await upsert({ subscriberId, channels: { chat: [] } });
      expect((await stored(subscriberId)).chat).toEqual([]);
    });

    it("keeps the channels when an update leaves them out", async () => {
      const subscriberId = unique("sub");
      await upsert({ subscriberId, channels: { push: [{ provider: "fcm", token: "t-1" }] } });
      await upsert({ subscriberId, firstName: "Pat" });
      expect((await stored(subscriberId)).push).toEqual([{ provider: "fcm", token: "t-1" }]);
    });

    it("keeps one copy of a push token given twice", async () => {
      const subscriberId = unique("sub");
      const res = await upsert({
        subscriberId,
        channels: {
          push: [
            { provider: "fcm", token: "dup" },
            { provider: "fcm", token: "dup" },
          ],
        },
      });
      expect(res.status).toBe(201);
      expect((await stored(subscriberId)).push).toEqual([{ provider: "fcm", token: "dup" }]);
    });
  });

  describe("validation", () => {
    it.each([
      ["a phone number not in E.164", { phone: "0791234567" }, "phone"],
      ["a phone number with spaces", { phone: "+41 79 123 45 67" }, "phone"],
      ["an invalid email", { email: "not-an-email" }, "email"],
      ["a locale that is not a BCP 47 tag", { locale: "not a locale!" }, "locale"],
      ["an unknown time zone", { timezone: "Mars/Olympus_Mons" }, "timezone"],
      ["an avatar that is not an http(s) URL", { avatar: "ftp://example.com/a.png" }, "avatar"],
      ["data that is not an object", { data: [1, 2] }, "data"],
      ["a firstName that is not a string", { firstName: 42 }, "firstName"],
      [
        "a chat webhook that is not a URL",
        { channels: { chat: [{ provider: "slack", webhookUrl: "nope" }] } },
        "channels.chat.0.webhookUrl",
      ],
      ["a push address without a token", { channels: { push: [{ provider: "fcm" }] } }, "channels.push.0.token"],
      ["an unknown field", { nickname: "Al" }, ""],
    ])("rejects %s with 422 and the field's path", async (_label, fields, path) => {
      const problem = expectProblem(await upsert({ subscriberId: unique("sub"), ...fields }), 422, "validation_failed");
      if (path) expect(errorPaths(problem)).toContain(path);
      else expect(problem.errors?.length).toBeGreaterThan(0);
    });

    it.each([
      ["a missing subscriberId", { email: "a@example.com" }],
      ["an empty subscriberId", { subscriberId: "   " }],
      ["a numeric subscriberId", { subscriberId: 42 }],
    ])("rejects %s with 422 at path subscriberId", async (_label, body) => {
      const problem = expectProblem(await upsert(body), 422, "validation_failed");
      expect(errorPaths(problem)).toContain("subscriberId");
    });

    it("does not write a subscriber that failed validation", async () => {
      const subscriberId = unique("sub");
      expectProblem(await upsert({ subscriberId, email: "bad" }), 422, "validation_failed");
      expect(await subscriberRow(environment.id, subscriberId)).toBeNull();
    });

    it("rejects a non-JSON content type with 415", async () => {
      const res = await api(environment.key, "POST", "/sub", undefined, {
        rawBody: JSON.stringify({ subscriberId: "x" }),
        headers: { "content-type": "text/plain" },
      });
      expectProblem(res, 415, "unsupported_media_type");
    });
  });
});

describe("POST /v1/subscribers", () => {
  it("creates (201) and updates (200) a subscriber as POST /sub does", async () => {
    const subscriberId = unique("sub");
    const created = await upsert({ subscriberId, email: "ada@example.com", firstName: "Ada" }, "/v1/subscribers");
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ subscriberId, email: "ada@example.com", firstName: "Ada" });
    const updated = await upsert({ subscriberId, firstName: "Grace", email: null }, "/v1/subscribers");
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ subscriberId, email: null, firstName: "Grace" });
    expect((await api<Subscriber>(environment.key, "GET", `/v1/subscribers/${subscriberId}`)).body).toMatchObject({ firstName: "Grace" });
  });

  it("refuses what POST /sub refuses, with the field's path", async () => {
    const problem = expectProblem(await upsert({ subscriberId: unique("sub"), email: "bad" }, "/v1/subscribers"), 422, "validation_failed");
    expect(errorPaths(problem)).toContain("email");
  });

  it("needs a key", async () => {
    expectProblem(await api(null, "POST", "/v1/subscribers", { subscriberId: unique("sub") }), 401, "unauthorized");
  });

  it("is described in /openapi.json beside POST /sub", async () => {
    const document = (await api<{ paths: Record<string, Record<string, unknown>> }>(null, "GET", "/openapi.json")).body;
    expect(document.paths["/v1/subscribers"]?.post).toBeDefined();
    expect(document.paths["/sub"]?.post).toBeDefined();
  });
});
