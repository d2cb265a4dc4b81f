import { z } from "@hono/zod-openapi";
import type { PushContent } from "../../engine/content";
import {
  type AnswerMapping,
  answerFailure,
  answerOutcome,
  callProvider,
  capped,
  classifyStatus,
  failure,
  isAnswer,
  joinUrl,
  malformed,
  parseJson,
} from "../http";
import { expiringCache, importPkcs8, looksLikePem, signJwt } from "../jwt";
import type { FailureKind, Outbound, ProviderAdapter, SendOutcome } from "../types";

const GOOGLE_TOKEN_URI = "https://oauth2.googleapis.com/token";
const SCOPE = "https://www.googleapis.com/auth/firebase.messaging";
const ASSERTION_LIFETIME_SECONDS = 3600;
/** Access tokens are dropped this long before Google says they expire. */
const EXPIRY_MARGIN_MS = 60_000;

const ServiceAccount = z
  .object({
    project_id: z.string().min(1),
    client_email: z.string().min(3),
    private_key: z
      .string()
      .refine(looksLikePem, "Expected the PKCS#8 PEM private key from the service-account file.")
      .openapi({ writeOnly: true }),
    token_uri: z.url().optional(),
  })
  .loose();

const ServiceAccountJson = z
  .string()
  // The whole key file as text holds the private key.
  .openapi({ writeOnly: true })
  .transform((text, ctx) => {
    const value = parseJson(text);
    if (value === undefined) {
      ctx.addIssue({ code: "custom", message: "Expected the service-account key file's JSON." });
      return z.NEVER;
    }
    return value;
  })
  .pipe(ServiceAccount);

const Credentials = z.object({
  serviceAccount: z.union([ServiceAccountJson, ServiceAccount]).openapi({
    description:
      "The Firebase service-account key file (JSON, as downloaded from the Firebase console), with project_id, client_email and private_key.",
  }),
  tokenUri: z.url().optional().openapi({
    description:
      "Where to exchange the signed assertion for an access token, if not Google's (an OAuth proxy, a test server). The assertion's audience stays the key file's token_uri.",
  }),
});
type Credentials = z.infer<typeof Credentials>;

/** Access tokens by service account and token endpoint, until shortly before they expire. */
const accessTokens = expiringCache<string>();

/** The assertion's audience is Google's endpoint even when the exchange goes through another URL. */
function tokenEndpoint(credentials: Credentials) {
  const audience = credentials.serviceAccount.token_uri ?? GOOGLE_TOKEN_URI;
  const tokenUri = credentials.tokenUri ?? audience;
  return { audience, tokenUri, cacheKey: `${credentials.serviceAccount.client_email}|${tokenUri}` };
}

async function accessToken(credentials: Credentials, outbound: Outbound): Promise<string | SendOutcome> {
  const account = credentials.serviceAccount;
  const { audience, tokenUri, cacheKey } = tokenEndpoint(credentials);
  const cached = accessTokens.get(cacheKey);
  if (cached) return cached;

  let assertion: string;
  try {
    const iat = Math.floor(Date.now() / 1000);
    // Google's own client sends just { alg }; `kid` lets Google pick the key without trying each.
    const header = {
      alg: "RS256" as const,
      typ: "JWT",
      ...(typeof account.private_key_id === "string" ? { kid: account.private_key_id } : {}),
    };
    const claims = { iss: account.client_email, scope: SCOPE, aud: audience, iat, exp: iat + ASSERTION_LIFETIME_SECONDS };
    assertion = await signJwt(header, claims, await importPkcs8(account.private_key, "RS256"));
  } catch (error) {
    return failure(
      "permanent",
      "invalid_private_key",
      `The service account's private_key is not a usable RSA key: ${(error as Error).message}`,
    );
  }
  const answer = await callProvider(
    {
      url: tokenUri,
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "urn:ietf:params:oauth:grant-type:jwt-bearer", assertion }).toString(),
    },
    outbound,
  );
  if (!isAnswer(answer)) return answer;
  const body = answer.json as { access_token?: string; expires_in?: number; error?: string; error_description?: string } | undefined;
  if (!answer.ok) {
    // invalid_grant (revoked key, bad clock), invalid_client: the credentials need fixing.
    return answerFailure(answer, {
      code: `oauth_${body?.error ?? answer.status}`,
      message: body?.error_description ?? capped(answer.text),
    });
  }
  if (!body?.access_token) return failure("retryable", "malformed_token_response", "The token endpoint answered without an access_token.");
  accessTokens.set(cacheKey, body.access_token, Date.now() + (body.expires_in ?? 3600) * 1000 - EXPIRY_MARGIN_MS);
  return body.access_token;
}

/** FCM `data` carries strings only; anything else is sent as its JSON. */
const stringValues = (data: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]));

function fcmMessage(token: string, content: PushContent) {
  const android = {
    ...(content.sound ? { sound: content.sound } : {}),
    ...(content.badge !== undefined ? { notification_count: content.badge } : {}),
  };
  const aps = { ...(content.badge !== undefined ? { badge: content.badge } : {}), ...(content.sound ? { sound: content.sound } : {}) };
  return {
    token,
    notification: { title: content.title, body: content.body, ...(content.imageUrl ? { image: content.imageUrl } : {}) },
    ...(content.data ? { data: stringValues(content.data) } : {}),
    ...(Object.keys(android).length ? { android: { notification: android } } : {}),
    ...(Object.keys(aps).length ? { apns: { payload: { aps } } } : {}),
  };
}

const FcmError = z.object({
  error: z
    .object({
      code: z.number().optional(),
      message: z.string().default(""),
      status: z.string().optional(),
      details: z.array(z.object({ "@type": z.string().optional(), errorCode: z.string().optional() }).loose()).default([]),
    })
    .loose(),
});

const KIND_BY_CODE: Record<string, FailureKind> = {
  UNREGISTERED: "invalid_recipient",
  SENDER_ID_MISMATCH: "invalid_recipient",
  QUOTA_EXCEEDED: "retryable",
  UNAVAILABLE: "retryable",
  INTERNAL: "retryable",
  THIRD_PARTY_AUTH_ERROR: "permanent",
};

/** `details[].errorCode` first (FCM's own code), then the Google RPC status. */
function readError(text: string): { code: string | undefined; message: string } {
  const parsed = FcmError.safeParse(parseJson(text));
  if (!parsed.success) return { code: undefined, message: capped(text) };
  const { error } = parsed.data;
  const fcmCode = error.details.find((d) => d["@type"]?.endsWith("FcmError") && d.errorCode)?.errorCode;
  return { code: fcmCode ?? error.status, message: error.message || capped(text) };
}

function classify(status: number, code: string | undefined, message: string): FailureKind {
  if (code && KIND_BY_CODE[code]) return KIND_BY_CODE[code];
  if (code === "INVALID_ARGUMENT" && /not a valid FCM registration token/i.test(message)) return "invalid_recipient";
  return classifyStatus(status);
}

/** messages:send answers with the message's resource name. */
const SEND_ANSWER: AnswerMapping = {
  success: ({ json }) => (json as { name?: string } | undefined)?.name || malformed("FCM answered without a message name."),
  failure: ({ text, status }) => {
    const { code, message } = readError(text);
    return { kind: classify(status, code, message), code: code ?? `http_${status}`, message };
  },
};

/**
 * Firebase Cloud Messaging, HTTP v1: one request per registration token, authorised by an OAuth2
 * access token that a service-account JWT is exchanged for (and that is cached until it expires).
 */
export const fcm: ProviderAdapter<"push"> = {
  id: "fcm",
  channel: "push",
  credentials: Credentials,
  destinations: ["tokenUri", "serviceAccount.token_uri"],

  async send(request, { integration, outbound }) {
    const credentials = Credentials.parse(integration.credentials);
    const url = joinUrl(
      integration.baseUrl ?? "https://fcm.googleapis.com",
      `/v1/projects/${encodeURIComponent(credentials.serviceAccount.project_id)}/messages:send`,
    );
    const body = JSON.stringify({ message: { ...fcmMessage(request.to, request.content), ...request.providerOverrides } });
    const { cacheKey } = tokenEndpoint(credentials);

    // A 401 UNAUTHENTICATED means the cached token went bad early (revoked): one fresh token, once.
    for (let attempt = 0; ; attempt++) {
      const token = await accessToken(credentials, outbound);
      if (typeof token !== "string") return token;
      const answer = await callProvider(
        { url, headers: { authorization: `Bearer ${token}`, "content-type": "application/json" }, body },
        outbound,
      );
      if (!isAnswer(answer)) return answer;
      if (!answer.ok && answer.status === 401 && readError(answer.text).code === "UNAUTHENTICATED") {
        accessTokens.delete(cacheKey);
        if (attempt === 0) continue;
      }
      return answerOutcome(answer, SEND_ANSWER);
    }
  },

  /** Exchanging the assertion for an access token proves the key without sending anything. */
  async check(integration, outbound) {
    const token = await accessToken(Credentials.parse(integration.credentials), outbound);
    return typeof token === "string"
      ? { ok: true, detail: "Google issued an access token for the service account." }
      : { ok: false, detail: `Google did not issue an access token (${token.ok ? "" : token.code}).` };
  },
};
