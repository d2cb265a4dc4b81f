import { z } from "@hono/zod-openapi";
import { capped, classifyStatus, failure, joinUrl, sendJson } from "../http";
import { expiringCache, importPkcs8, looksLikePem, signJwt } from "../jwt";
import type { FailureKind, IntegrationConfig, ProviderAdapter } from "../types";

const RELAY_REQUIRED =
  "APNs accepts only HTTP/2, which a Worker's fetch does not speak to Apple: this integration needs a baseUrl pointing at an HTTP/2-capable relay " +
  "that forwards POST /3/device/<token> with its headers to api.push.apple.com (or api.sandbox.push.apple.com). Without a relay, send to iOS through FCM, Expo or OneSignal.";

const Credentials = z
  .object({
    keyId: z.string().length(10).openapi({ description: "The 10-character Key ID of the APNs auth key (.p8)." }),
    teamId: z.string().length(10).openapi({ description: "The 10-character Apple Developer Team ID." }),
    privateKey: z.string().refine(looksLikePem, "Expected the .p8 file's contents (-----BEGIN PRIVATE KEY-----…).").openapi({
      description: "The APNs auth key: the contents of the AuthKey_<keyId>.p8 file.",
      writeOnly: true,
    }),
    topic: z.string().min(1).openapi({ description: "The app's bundle id (apns-topic), e.g. com.acme.app." }),
    pushType: z
      .enum(["alert", "background"])
      .default("alert")
      .openapi({ description: "apns-push-type; alert unless the app only takes silent pushes." }),
  })
  .openapi({ description: `Apple Push Notification service with a token-based (.p8) key. baseUrl is REQUIRED: ${RELAY_REQUIRED}` });
type Credentials = z.infer<typeof Credentials>;

/**
 * Apple rejects provider tokens older than an hour and refreshes more often than every 20 minutes.
 * `iat` is rounded down to a 30-minute step, so every isolate signs the same claims and a token is
 * at most 30 minutes old when used.
 */
const TOKEN_STEP_SECONDS = 30 * 60;
const providerTokens = expiringCache<string>();
const tokenKey = (c: Credentials) => `${c.teamId}|${c.keyId}|${c.privateKey}`;

async function providerToken(credentials: Credentials): Promise<string> {
  const key = tokenKey(credentials);
  const cached = providerTokens.get(key);
  if (cached) return cached;
  const now = Math.floor(Date.now() / 1000);
  const iat = now - (now % TOKEN_STEP_SECONDS);
  const token = await signJwt(
    { alg: "ES256", kid: credentials.keyId },
    { iss: credentials.teamId, iat },
    await importPkcs8(credentials.privateKey, "ES256"),
  );
  providerTokens.set(key, token, (iat + TOKEN_STEP_SECONDS) * 1000);
  return token;
}

const KIND_BY_REASON: Record<string, FailureKind> = {
  Unregistered: "invalid_recipient",
  ExpiredToken: "invalid_recipient",
  BadDeviceToken: "invalid_recipient",
  DeviceTokenNotForTopic: "invalid_recipient",
  // A new provider token is signed on the next attempt (the cached one is dropped below).
  ExpiredProviderToken: "retryable",
  // Several isolates may sign tokens at once; backing off beats failing the message.
  TooManyProviderTokenUpdates: "retryable",
};

/**
 * Apple Push Notification service, token-based auth. Sends Apple's documented request to the
 * integration's baseUrl, which must be an HTTP/2-capable relay (see RELAY_REQUIRED).
 */
export const apns: ProviderAdapter<"push"> = {
  id: "apns",
  channel: "push",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    if (!integration.baseUrl) return failure("permanent", "apns_relay_required", RELAY_REQUIRED);
    let token: string;
    try {
      token = await providerToken(credentials);
    } catch (error) {
      return failure("permanent", "invalid_private_key", `The APNs key is not a usable P-256 key: ${(error as Error).message}`);
    }
    const { content } = request;
    const background = credentials.pushType === "background";
    const aps = background
      ? { "content-available": 1 }
      : {
          alert: { title: content.title, body: content.body },
          ...(content.badge !== undefined ? { badge: content.badge } : {}),
          ...(content.sound ? { sound: content.sound } : {}),
          ...(content.imageUrl ? { "mutable-content": 1 } : {}),
        };
    const apnsId = crypto.randomUUID();
    return sendJson(
      {
        url: joinUrl(integration.baseUrl, `/3/device/${encodeURIComponent(request.to)}`),
        headers: {
          authorization: `bearer ${token}`,
          "apns-topic": credentials.topic,
          "apns-push-type": credentials.pushType,
          // Apple requires priority 5 for background pushes.
          "apns-priority": background ? "5" : "10",
          "apns-id": apnsId,
          "content-type": "application/json",
        },
        body: {
          // Custom keys sit beside `aps`; an image URL is for a notification service extension.
          ...content.data,
          ...(content.imageUrl ? { imageUrl: content.imageUrl } : {}),
          aps,
          ...request.providerOverrides,
        },
        success: ({ headers }) => headers.get("apns-id") ?? apnsId,
        failure: ({ json, text, status }) => {
          const reason = (json as { reason?: string } | undefined)?.reason;
          if (reason === "ExpiredProviderToken" || reason === "InvalidProviderToken") providerTokens.delete(tokenKey(credentials));
          const kind = (reason ? KIND_BY_REASON[reason] : undefined) ?? (status === 410 ? "invalid_recipient" : classifyStatus(status));
          return { kind, code: reason ?? `http_${status}`, message: capped(text) || `APNs answered ${status}.` };
        },
      },
      outbound,
    );
  },

  /** Nothing harmless to call at Apple; what can be checked without a send is the key and the relay. */
  async check(integration: IntegrationConfig) {
    if (!integration.baseUrl) return { ok: false, detail: RELAY_REQUIRED };
    try {
      await providerToken(Credentials.parse(integration.credentials));
      return { ok: true, detail: "The key signs a provider token; APNs has no call that checks it without sending." };
    } catch (error) {
      return { ok: false, detail: `The APNs key does not import: ${(error as Error).message}` };
    }
  },
};
