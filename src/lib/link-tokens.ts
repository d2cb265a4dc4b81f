/**
 * Preference-link tokens: `<environmentId>.<sealed>`. The environment id is in the clear because
 * it picks the secret; everything else is sealed with AES-256-GCM under a key derived (HKDF) from
 * that environment's link secret: the subscriber's row id (one per incarnation, so a link minted
 * before an erasure names nobody once the subscriberId is created again) and the workflow. Nothing
 * a mail log or a proxy records of the URL says who the subscriber is. Rotating the secret revokes
 * every link at once; tokens do not expire.
 *
 * The IV is synthetic (an HMAC of the sealed content, under a second derived key), so the same
 * subscriber and workflow always get the same link: one spelling per link, as the per-link rate
 * limit and the form nonce expect, and an IV repeats only with the very same plaintext.
 */
import { base64ToBytes, base64UrlToBytes, bytesToBase64, bytesToBase64Url } from "./base64";
import { deriveHkdf } from "./crypto";
import { PromiseCache } from "./promise-cache";

/** What a verified token names: the environment, the subscriber's row, and the workflow of its email. */
export interface SealedLink {
  environmentId: string;
  /** `subscribers.id`: the incarnation, not the team's subscriberId. */
  subscriberRowId: string;
  /** The workflow the message came from; null for links minted by a backend. */
  workflowKey: string | null;
  /** The tenant of the message: its page shows the tenant's brand and edits the preferences inside it. Null: none. */
  tenantId: string | null;
}

export interface LinkClaims {
  environmentId: string;
  subscriberId: string;
  workflowKey: string | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Longer tokens are refused before any parsing or crypto. */
export const MAX_TOKEN_LENGTH = 1024;
const ENVIRONMENT_ID = /^[A-Za-z0-9_-]{1,100}$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

/** A fresh link secret: 32 random bytes, base64. */
export const newLinkSecret = () => bytesToBase64(crypto.getRandomValues(new Uint8Array(32)));

const aad = (environmentId: string) => encoder.encode(`clarion-link:${environmentId}`);

const derive = (secret: string, info: string, algorithm: Parameters<typeof deriveHkdf>[2], usages: Parameters<typeof deriveHkdf>[3]) =>
  deriveHkdf(base64ToBytes(secret), info, algorithm, usages);

type LinkKeys = { seal: CryptoKey; iv: CryptoKey };

/**
 * The two keys of each secret seen in this isolate, by the secret's text, derived without
 * `hkdfKey`'s cache: finding them there encoded the material and the algorithm into its cache key
 * per delivery chunk (a bulk batch runs hundreds), 2 % of the delivery's CPU. A rotated secret is
 * another text, so its old keys simply age out.
 */
const keysBySecret = new PromiseCache<LinkKeys>(256);

/** The two keys of one environment's secret, derived once per isolate. */
const linkKeys = (secret: string): Promise<LinkKeys> =>
  keysBySecret.get(secret, async () => {
    const [seal, iv] = await Promise.all([
      derive(secret, "clarion-link-seal", { name: "AES-GCM", length: 256 }, ["encrypt", "decrypt"]),
      derive(secret, "clarion-link-iv", { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign"]),
    ]);
    return { seal, iv };
  });

/** Seals links of one environment; the keys are derived once, for a whole delivery batch. */
export async function linkSealer(secret: string, environmentId: string) {
  const keys = await linkKeys(secret);
  const additionalData = aad(environmentId);
  // A link without a tenant seals what it did before tenants: the same spelling as then.
  return async (subscriberRowId: string, workflowKey: string | null, tenantId?: string | null): Promise<string> => {
    const plain = encoder.encode(JSON.stringify(tenantId ? [subscriberRowId, workflowKey, tenantId] : [subscriberRowId, workflowKey]));
    // The MAC's input is the AAD, a zero byte and the plaintext, copied in (not spread through an
    // array: that was most of a seal's own time, one seal per recipient of every delivery).
    const input = new Uint8Array(additionalData.length + 1 + plain.length);
    input.set(additionalData);
    input.set(plain, additionalData.length + 1);
    const mac = await crypto.subtle.sign("HMAC", keys.iv, input);
    const iv = new Uint8Array(mac).subarray(0, IV_BYTES);
    const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData }, keys.seal, plain));
    const bytes = new Uint8Array(IV_BYTES + sealed.length);
    bytes.set(iv);
    bytes.set(sealed, IV_BYTES);
    return `${environmentId}.${bytesToBase64Url(bytes)}`;
  };
}

/** The environment a token says it is for, unverified: whose secret to open it with. Null when it is no sealed token. */
export function tokenEnvironment(token: string): string | null {
  if (token.length > MAX_TOKEN_LENGTH) return null;
  const [environmentId, sealed, extra] = token.split(".");
  if (extra !== undefined || !environmentId || !sealed || !ENVIRONMENT_ID.test(environmentId) || !BASE64URL.test(sealed)) return null;
  return environmentId;
}

/** What a token names, when it was sealed under this secret for its environment; null for anything else. */
export async function openToken(secret: string, token: string): Promise<SealedLink | null> {
  const environmentId = tokenEnvironment(token);
  if (!environmentId) return null;
  const text = token.slice(environmentId.length + 1);
  let bytes: Uint8Array;
  try {
    bytes = base64UrlToBytes(text);
  } catch {
    return null;
  }
  // Re-encoding refuses non-canonical trailing bits: each link has one spelling.
  if (bytes.length <= IV_BYTES + TAG_BYTES || bytesToBase64Url(bytes) !== text) return null;
  try {
    const { seal } = await linkKeys(secret);
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.subarray(0, IV_BYTES), additionalData: aad(environmentId) },
      seal,
      bytes.subarray(IV_BYTES),
    );
    const parsed: unknown = JSON.parse(decoder.decode(plain));
    if (!Array.isArray(parsed) || (parsed.length !== 2 && parsed.length !== 3)) return null;
    const [subscriberRowId, workflowKey, tenantId = null] = parsed as unknown[];
    if (typeof subscriberRowId !== "string" || (workflowKey !== null && typeof workflowKey !== "string")) return null;
    if (tenantId !== null && typeof tenantId !== "string") return null;
    return { environmentId, subscriberRowId, workflowKey, tenantId };
  } catch {
    return null;
  }
}

export interface PreferenceLinks {
  /** `POST` here unsubscribes in one click (RFC 8058); `GET` shows a page with one button. */
  unsubscribeUrl: string;
  /** The hosted preference page. */
  preferencesUrl: string;
}

/** Both links of one token, on the deployment's public URL. */
export function linkUrls(publicUrl: string, token: string): PreferenceLinks {
  const base = publicUrl.replace(/\/+$/, "");
  return { unsubscribeUrl: `${base}/u/${token}`, preferencesUrl: `${base}/p/${token}` };
}
