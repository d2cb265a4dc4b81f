import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expo } from "../../../src/providers/push/expo";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";
import { pushContent } from "./sample-content";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const TOKEN = "ExponentPushToken[xxxxxxxxxxxxxxxxxxxxxx]";
const TICKET_ID = "XXXXXXXX-XXXX-XXXX-XXXX-XXXXXXXXXXXX";
const content = pushContent;
const okTicket = { status: 200, body: { data: [{ status: "ok", id: TICKET_ID }] } };

/** expo-server-sdk reads EXPO_BASE_URL when it is first imported. */
async function expoSdk(accessToken?: string) {
  process.env.EXPO_BASE_URL = server.url;
  const { Expo } = await import("expo-server-sdk");
  return new Expo(accessToken ? { accessToken } : {});
}

describe("expo adapter matches expo-server-sdk", () => {
  it.each([
    ["without an access token", undefined],
    ["with an access token", "expo-access-token-0123456789"],
  ])("sends the same request as `expo-server-sdk` sendPushNotificationsAsync, %s", async (_name, accessToken) => {
    server.reset();
    server.answer(okTicket);
    const sdk = await expoSdk(accessToken);
    const tickets = await sdk.sendPushNotificationsAsync([
      {
        to: TOKEN,
        title: content.title,
        body: content.body,
        data: content.data,
        badge: 2,
        sound: "default",
        richContent: { image: content.imageUrl },
      },
    ]);
    expect(tickets).toEqual([{ status: "ok", id: TICKET_ID }]);
    const expected = server.requests.at(-1)!;
    server.reset();

    const { outcome } = await sendWith(
      expo,
      { credentials: accessToken ? { accessToken } : {}, baseUrl: server.url },
      { to: TOKEN, content },
    );
    const actual = server.requests.at(-1)!;
    expect(outcome).toEqual({ ok: true, providerMessageId: TICKET_ID });
    expect(shape(actual)).toEqual(shape(expected));
    expect(actual.path).toBe("/--/api/v2/push/send");
    expect(actual.headers.authorization).toBe(expected.headers.authorization);
    expect(actual.headers.accept).toBe(expected.headers.accept);
    expect(actual.headers["accept-encoding"]).toBe(expected.headers["accept-encoding"]);
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
  });

  it.each([
    [
      "ticket MessageTooBig",
      200,
      {},
      { data: [{ status: "error", message: "Message too big", details: { error: "MessageTooBig" } }] },
      "permanent",
      "MessageTooBig",
      undefined,
    ],
    [
      "ticket MessageRateExceeded",
      200,
      {},
      { data: [{ status: "error", message: "Rate exceeded", details: { error: "MessageRateExceeded" } }] },
      "retryable",
      "MessageRateExceeded",
      undefined,
    ],
    [
      "ticket InvalidCredentials",
      200,
      {},
      { data: [{ status: "error", message: "Invalid FCM server key", details: { error: "InvalidCredentials" } }] },
      "permanent",
      "InvalidCredentials",
      undefined,
    ],
    [
      "HTTP 400 with errors[]",
      400,
      {},
      { errors: [{ code: "VALIDATION_ERROR", message: '"to" must be a string or array' }] },
      "permanent",
      "VALIDATION_ERROR",
      undefined,
    ],
    [
      "HTTP 401 (enhanced security)",
      401,
      {},
      { errors: [{ code: "UNAUTHORIZED", message: "Invalid access token" }] },
      "permanent",
      "UNAUTHORIZED",
      undefined,
    ],
  ])("classifies %s", async (_name, status, headers, body, kind, code, retryAfterSeconds) => {
    server.reset();
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(expo, { credentials: {}, baseUrl: server.url }, { to: TOKEN, content });
    expect(outcome).toMatchObject({ ok: false, kind, code, ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}) });
  });
});
