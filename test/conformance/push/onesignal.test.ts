import * as OneSignal from "@onesignal/node-onesignal";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { onesignal } from "../../../src/providers/push/onesignal";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";
import { pushContent } from "./sample-content";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const APP_ID = "5eb5a37e-b458-11e3-ac11-000c2940e62c";
const API_KEY = "os_v2_app_lxk2g7vulaiohlarabgcsqhcfq_conformance";
const SUBSCRIPTION = "1dd608f2-c6a1-11e3-851d-000c2940e62c";
const NOTIFICATION_ID = "b98881cc-1e94-4366-bbd9-db8f3429292b";
const content = pushContent;
const created = { status: 200, body: { id: NOTIFICATION_ID, external_id: null } };
const credentials = { appId: APP_ID, apiKey: API_KEY };

function sdkClient() {
  return new OneSignal.DefaultApi(
    OneSignal.createConfiguration({ restApiKey: API_KEY, baseServer: new OneSignal.ServerConfiguration(server.url, {}) }),
  );
}

/** The body the official client sent, minus the idempotency key (a UUID each side picks). */
const withoutKey = (text: string) => {
  const { idempotency_key: key, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return { key, rest };
};

describe("onesignal adapter matches @onesignal/node-onesignal", () => {
  it.each([
    ["subscription_id", { include_subscription_ids: [SUBSCRIPTION] }, SUBSCRIPTION],
    ["external_id", { include_aliases: { external_id: ["sub-1"] } }, "sub-1"],
  ] as const)("sends the same request as createNotification (tokens are %s)", async (tokenType, target, to) => {
    server.reset();
    server.answer(created);
    const notification = new OneSignal.Notification();
    Object.assign(notification, {
      app_id: APP_ID,
      target_channel: "push",
      ...target,
      headings: { en: content.title },
      contents: { en: content.body },
      data: content.data,
      ios_badge_type: "SetTo",
      ios_badge_count: 2,
      ios_sound: "default",
      big_picture: content.imageUrl,
      ios_attachments: { image: content.imageUrl },
      idempotency_key: "3f1b8c52-7a0e-4c1d-9b2a-5e6f7a8b9c0d",
    });
    expect(await sdkClient().createNotification(notification)).toMatchObject({ id: NOTIFICATION_ID });
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(onesignal, { credentials: { ...credentials, tokenType }, baseUrl: server.url }, { to, content });
    const actual = server.requests.at(-1)!;
    expect(outcome).toEqual({ ok: true, providerMessageId: NOTIFICATION_ID });
    expect(shape(actual)).toEqual(shape(expected));
    expect(actual.path).toBe("/notifications");
    expect(actual.headers.authorization).toBe(`Key ${API_KEY}`);
    expect(actual.headers.authorization).toBe(expected.headers.authorization);
    const ours = withoutKey(actual.text);
    expect(ours.rest).toEqual(withoutKey(expected.text).rest);
    expect(ours.key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it("keeps the idempotency key of a message across retries", async () => {
    server.reset();
    server.answer(created);
    await sendWith(onesignal, { credentials, baseUrl: server.url }, { to: SUBSCRIPTION, content, messageId: "msg_1" });
    await sendWith(onesignal, { credentials, baseUrl: server.url }, { to: SUBSCRIPTION, content, messageId: "msg_1" });
    await sendWith(onesignal, { credentials, baseUrl: server.url }, { to: SUBSCRIPTION, content, messageId: "msg_2" });
    const keys = server.requests.map((r) => withoutKey(r.text).key);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it.each([
    [
      "200 with invalid_aliases",
      200,
      {},
      { id: "", errors: { invalid_aliases: { external_id: ["sub-1"] } } },
      "invalid_recipient",
      "not_subscribed",
      undefined,
    ],
    ["400 errors[]", 400, {}, { errors: ["Message Notifications must have English language content"] }, "permanent", "http_400", undefined],
    [
      "403 bad key",
      403,
      {},
      { errors: ["Access denied.  Please include an 'Authorization: ...' header with a valid API key."] },
      "permanent",
      "http_403",
      undefined,
    ],
  ])("classifies %s", async (_name, status, headers, body, kind, code, retryAfterSeconds) => {
    server.reset();
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(onesignal, { credentials, baseUrl: server.url }, { to: SUBSCRIPTION, content });
    expect(outcome).toMatchObject({ ok: false, kind, code, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
  });
});
