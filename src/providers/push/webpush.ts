import { z } from "@hono/zod-openapi";
import { addressUrl, capped, failure, parseJson, sendRequest } from "../http";
import { base64UrlToBytes, bytesToBase64Url } from "../../lib/base64";
import { signJwt } from "../jwt";
import type { ProviderAdapter } from "../types";

const isKeyOf = (length: number) => (value: string) => {
  try {
    return base64UrlToBytes(value).length === length;
  } catch {
    return false;
  }
};

/** web-push's default TTL, and the most push services keep a message. */
const FOUR_WEEKS_SECONDS = 2_419_200;

const Credentials = z.object({
  vapidPublicKey: z.string().refine(isKeyOf(65), "Expected the 65-byte uncompressed P-256 public key, base64url.").openapi({
    description: "VAPID public key (base64url, 65 bytes): the applicationServerKey the browser subscribed with.",
  }),
  vapidPrivateKey: z.string().refine(isKeyOf(32), "Expected the 32-byte P-256 private key, base64url.").openapi({
    description: "VAPID private key (base64url, 32 bytes), as `web-push generate-vapid-keys` prints it.",
    writeOnly: true,
  }),
  subject: z
    .string()
    .regex(/^(mailto:|https:\/\/)/, "Use a mailto: address or an https: URL.")
    .openapi({
      description: "VAPID contact (sub claim): mailto:ops@example.com or an https URL. Apple rejects localhost.",
    }),
  ttlSeconds: z.number().int().min(0).max(FOUR_WEEKS_SECONDS).default(FOUR_WEEKS_SECONDS).openapi({
    description: "How long the push service keeps an undelivered message (TTL header); 4 weeks unless set, as in the web-push library.",
  }),
  urgency: z.enum(["very-low", "low", "normal", "high"]).default("normal"),
});

/** The subscriber's push token: the browser's PushSubscription, as JSON. */
const Subscription = z.object({
  endpoint: z.url(),
  keys: z.object({ p256dh: z.string().refine(isKeyOf(65)), auth: z.string().refine(isKeyOf(16)) }),
});

const encoder = new TextEncoder();
const utf8 = (text: string) => new Uint8Array(encoder.encode(text));
const RECORD_SIZE = 4096;
const VAPID_LIFETIME_SECONDS = 12 * 60 * 60;

const concat = (...parts: Uint8Array[]) => {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
};

async function hkdf(salt: Uint8Array<ArrayBuffer>, ikm: Uint8Array<ArrayBuffer>, info: Uint8Array<ArrayBuffer>, bytes: number) {
  const key = await crypto.subtle.importKey("raw", ikm, "HKDF", false, ["deriveBits"]);
  return new Uint8Array(await crypto.subtle.deriveBits({ name: "HKDF", hash: "SHA-256", salt, info }, key, bytes * 8));
}

/** RFC 8291 (aes128gcm, one record): the body a push service forwards to the browser. */
export async function encryptPayload(
  plaintext: Uint8Array,
  receiver: { p256dh: Uint8Array<ArrayBuffer>; auth: Uint8Array<ArrayBuffer> },
  salt: Uint8Array<ArrayBuffer> = crypto.getRandomValues(new Uint8Array(16)),
): Promise<Uint8Array<ArrayBuffer>> {
  const uaPublic = await crypto.subtle.importKey("raw", receiver.p256dh, { name: "ECDH", namedCurve: "P-256" }, false, []);
  const local = (await crypto.subtle.generateKey({ name: "ECDH", namedCurve: "P-256" }, true, ["deriveBits"])) as CryptoKeyPair;
  const asPublic = new Uint8Array((await crypto.subtle.exportKey("raw", local.publicKey)) as ArrayBuffer);
  // Not an inline literal: workers-types spells the member `$public`, the runtime reads `public`.
  const ecdh = { name: "ECDH", public: uaPublic };
  const ecdhSecret = new Uint8Array(await crypto.subtle.deriveBits(ecdh, local.privateKey, 256));
  const ikm = await hkdf(receiver.auth, ecdhSecret, concat(utf8("WebPush: info\0"), receiver.p256dh, asPublic), 32);
  const cek = await hkdf(salt, ikm, utf8("Content-Encoding: aes128gcm\0"), 16);
  const nonce = await hkdf(salt, ikm, utf8("Content-Encoding: nonce\0"), 12);
  const aesKey = await crypto.subtle.importKey("raw", cek, "AES-GCM", false, ["encrypt"]);
  // 0x02 marks the last (only) record; no padding.
  const ciphertext = new Uint8Array(
    await crypto.subtle.encrypt({ name: "AES-GCM", iv: nonce }, aesKey, concat(plaintext, Uint8Array.of(2))),
  );
  const header = new Uint8Array(16 + 4 + 1);
  header.set(salt);
  new DataView(header.buffer).setUint32(16, RECORD_SIZE);
  header[20] = asPublic.length;
  return concat(header, asPublic, ciphertext);
}

/** RFC 8292: `vapid t=<JWT>, k=<public key>`, the JWT's audience being the push service's origin. */
async function vapidAuthorization(credentials: z.infer<typeof Credentials>, audience: string): Promise<string> {
  const publicKey = base64UrlToBytes(credentials.vapidPublicKey);
  const key = await crypto.subtle.importKey(
    "jwk",
    {
      kty: "EC",
      crv: "P-256",
      x: bytesToBase64Url(publicKey.subarray(1, 33)),
      y: bytesToBase64Url(publicKey.subarray(33, 65)),
      d: credentials.vapidPrivateKey,
      ext: true,
    },
    { name: "ECDSA", namedCurve: "P-256" },
    false,
    ["sign"],
  );
  const exp = Math.floor(Date.now() / 1000) + VAPID_LIFETIME_SECONDS;
  const jwt = await signJwt({ typ: "JWT", alg: "ES256" }, { aud: audience, exp, sub: credentials.subject }, key);
  return `vapid t=${jwt}, k=${credentials.vapidPublicKey}`;
}

/**
 * Web Push to a browser subscription: the payload is encrypted for the subscription's keys and
 * POSTed to its endpoint with a VAPID signature. 404/410 mean the subscription is gone.
 */
export const webpush: ProviderAdapter<"push"> = {
  id: "webpush",
  channel: "push",
  credentials: Credentials,

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const subscription = Subscription.safeParse(parseJson(request.to));
    if (!subscription.success)
      return failure(
        "invalid_recipient",
        "invalid_subscription",
        "The push token is not a PushSubscription JSON ({endpoint, keys: {p256dh, auth}}).",
      );
    const { endpoint, keys } = subscription.data;
    // The audience is the push service itself, even when baseUrl sends the request through a proxy.
    const audience = new URL(endpoint).origin;
    const url = addressUrl(endpoint, integration.baseUrl);
    if (!url) return failure("invalid_recipient", "invalid_subscription", "The subscription endpoint is not an http(s) URL.");

    const { content } = request;
    const plaintext = encoder.encode(
      JSON.stringify({
        title: content.title,
        body: content.body,
        ...(content.data ? { data: content.data } : {}),
        ...(content.badge !== undefined ? { badge: content.badge } : {}),
        ...(content.sound ? { sound: content.sound } : {}),
        ...(content.imageUrl ? { image: content.imageUrl } : {}),
        messageId: request.messageId,
        ...request.providerOverrides,
      }),
    );
    let body: Uint8Array<ArrayBuffer>;
    try {
      body = await encryptPayload(plaintext, { p256dh: base64UrlToBytes(keys.p256dh), auth: base64UrlToBytes(keys.auth) });
    } catch (error) {
      // The schema checked the lengths; what is left is a p256dh that is not a point on the curve.
      return failure(
        "invalid_recipient",
        "invalid_subscription_keys",
        `Could not encrypt for this subscription: ${(error as Error).message}`,
      );
    }
    let authorization: string;
    try {
      authorization = await vapidAuthorization(credentials, audience);
    } catch (error) {
      return failure("permanent", "invalid_vapid_keys", `The VAPID keys do not form a P-256 key pair: ${(error as Error).message}`);
    }
    if (body.length > RECORD_SIZE)
      return failure(
        "permanent",
        "payload_too_large",
        `The encrypted payload is ${body.length} bytes; push services take at most ${RECORD_SIZE}.`,
      );

    return sendRequest(
      {
        url,
        headers: {
          authorization,
          ttl: String(credentials.ttlSeconds),
          urgency: credentials.urgency,
          "content-encoding": "aes128gcm",
          "content-type": "application/octet-stream",
        },
        body,
        // Push services answer 201 with the message's URL; without one, Clarion's id is the only id.
        success: ({ headers }) => headers.get("location") ?? request.messageId,
        failure: ({ text, status }) => {
          const message = capped(text) || `The push service answered ${status}.`;
          return status === 404 || status === 410 ? { kind: "invalid_recipient", code: "subscription_gone", message } : { message };
        },
      },
      outbound,
    );
  },

  /** No push service has a call to check VAPID keys; what can be checked is that the two keys form a pair. */
  async check(integration) {
    const credentials = Credentials.parse(integration.credentials);
    try {
      const jwt = /^vapid t=([^,]+),/.exec(await vapidAuthorization(credentials, "https://push.example"))![1]!;
      const [header, claims, signature] = jwt.split(".") as [string, string, string];
      const publicKey = await crypto.subtle.importKey(
        "raw",
        base64UrlToBytes(credentials.vapidPublicKey),
        { name: "ECDSA", namedCurve: "P-256" },
        false,
        ["verify"],
      );
      const paired = await crypto.subtle.verify(
        { name: "ECDSA", hash: "SHA-256" },
        publicKey,
        base64UrlToBytes(signature),
        utf8(`${header}.${claims}`),
      );
      return paired
        ? { ok: true, detail: "The VAPID keys form a pair; push services check them only on a send." }
        : { ok: false, detail: "The VAPID private key does not belong to the public key." };
    } catch (error) {
      return { ok: false, detail: `The VAPID keys are not a P-256 key pair: ${(error as Error).message}` };
    }
  },
};
