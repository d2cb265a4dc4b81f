/**
 * Amazon SNS HTTP(S) deliveries: signature verification with the certificate SNS names in
 * `SigningCertURL` (RSA, SHA1 for SignatureVersion 1, SHA256 for 2), and the subscription handshake.
 * A signature only proves that SNS sent the message, not that it came from your topic: callers must
 * also pin `TopicArn`.
 */
import { base64ToBytes } from "../lib/base64";
import { z } from "@hono/zod-openapi";
import { parseJson } from "./http";
import { pemToDer, spkiFromCertificate } from "./signatures";

export const SnsMessage = z
  .object({
    Type: z.enum(["Notification", "SubscriptionConfirmation", "UnsubscribeConfirmation"]),
    MessageId: z.string(),
    TopicArn: z.string(),
    Subject: z.string().optional(),
    Message: z.string(),
    Timestamp: z.string(),
    SignatureVersion: z.enum(["1", "2"]),
    Signature: z.string(),
    SigningCertURL: z.string(),
    SubscribeURL: z.string().optional(),
    Token: z.string().optional(),
  })
  .loose();
export type SnsMessage = z.infer<typeof SnsMessage>;

const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/;

/**
 * SNS certificates and subscription URLs are only fetched from SNS itself (https, sns.<region>.amazonaws.com),
 * or from an operator-configured prefix (an SNS-compatible service such as LocalStack, or tests).
 */
export function isTrustedSnsUrl(value: string, trustedPrefix?: string): boolean {
  if (trustedPrefix && value.startsWith(trustedPrefix.replace(/\/*$/, "/"))) return true;
  try {
    const url = new URL(value);
    return url.protocol === "https:" && SNS_HOST.test(url.hostname) && url.port === "";
  } catch {
    return false;
  }
}

/** The canonical string SNS signs: `Key\nValue\n` for a fixed list of keys, absent ones skipped. */
export function snsStringToSign(message: SnsMessage): string {
  const keys =
    message.Type === "Notification"
      ? (["Message", "MessageId", "Subject", "Timestamp", "TopicArn", "Type"] as const)
      : (["Message", "MessageId", "SubscribeURL", "Timestamp", "Token", "TopicArn", "Type"] as const);
  return keys.flatMap((key) => (message[key] === undefined ? [] : [`${key}\n${message[key]}\n`])).join("");
}

// Signing certificates rotate rarely; keep their public keys per URL (a bounded cache, URLs already trusted).
const MAX_CACHED_CERTIFICATES = 32;
const certificates = new Map<string, Promise<Uint8Array<ArrayBuffer>>>();

function signingKey(url: string): Promise<Uint8Array<ArrayBuffer>> {
  const cached = certificates.get(url);
  if (cached) return cached;
  const loading = (async () => {
    const response = await fetch(url, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) throw new Error(`certificate fetch answered ${response.status}`);
    return spkiFromCertificate(pemToDer(await response.text()));
  })();
  if (certificates.size >= MAX_CACHED_CERTIFICATES) certificates.delete(certificates.keys().next().value!);
  certificates.set(url, loading);
  loading.catch(() => certificates.delete(url));
  return loading;
}

export interface SnsVerifyOptions {
  /** The topic the integration subscribed; messages from any other topic are refused. */
  topicArn: string;
  trustedUrlPrefix?: string;
}

/** The message if its signature verifies and it comes from the expected topic, else undefined. */
export async function verifySnsMessage(body: string, options: SnsVerifyOptions): Promise<SnsMessage | undefined> {
  const parsed = SnsMessage.safeParse(parseJson(body));
  if (!parsed.success) return undefined;
  const message = parsed.data;
  if (message.TopicArn !== options.topicArn || !isTrustedSnsUrl(message.SigningCertURL, options.trustedUrlPrefix)) return undefined;
  try {
    const hash = message.SignatureVersion === "1" ? "SHA-1" : "SHA-256";
    const key = await crypto.subtle.importKey(
      "spki",
      await signingKey(message.SigningCertURL),
      { name: "RSASSA-PKCS1-v1_5", hash },
      false,
      ["verify"],
    );
    const valid = await crypto.subtle.verify(
      "RSASSA-PKCS1-v1_5",
      key,
      base64ToBytes(message.Signature),
      new TextEncoder().encode(snsStringToSign(message)),
    );
    return valid ? message : undefined;
  } catch {
    return undefined;
  }
}

/** Confirms a verified SubscriptionConfirmation by visiting its SubscribeURL (SNS's documented handshake). */
export async function confirmSnsSubscription(message: SnsMessage, trustedUrlPrefix?: string): Promise<boolean> {
  if (message.Type !== "SubscriptionConfirmation" || !message.SubscribeURL || !isTrustedSnsUrl(message.SubscribeURL, trustedUrlPrefix))
    return false;
  try {
    const response = await fetch(message.SubscribeURL, { signal: AbortSignal.timeout(5000) });
    await response.body?.cancel();
    return response.ok;
  } catch {
    return false;
  }
}
