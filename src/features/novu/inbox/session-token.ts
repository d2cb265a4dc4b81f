// The Inbox session token: what a browser holds instead of a key. It names one subscriber in one
// environment and expires; it is signed with a key derived from ENCRYPTION_KEY for this use only.
import { sign, verify } from "hono/jwt";
import type { Db } from "../../../db/client";
import { ApiError } from "../../../lib/errors";
import { signingKey } from "../../../lib/secrets";
import { sessionState } from "./session-repository";

/** `@novu/js` never renews its token: a day outlives a working session, and a reload starts a new one. */
export const SESSION_TTL_SECONDS = 24 * 60 * 60;
const AUDIENCE = "clarion-inbox";
const ALGORITHM = "HS256";

/** Who an Inbox request acts for. */
export interface InboxSubject {
  environmentId: string;
  subscriberId: string;
}

/** Derived once per isolate and ENCRYPTION_KEY: every Inbox request verifies a token. */
const keys = new Map<string, Promise<CryptoKey>>();
function keyOf(encryptionKey: string | undefined): Promise<CryptoKey> {
  if (!encryptionKey) return signingKey(encryptionKey, "clarion-inbox-session");
  let key = keys.get(encryptionKey);
  if (!key) {
    key = signingKey(encryptionKey, "clarion-inbox-session");
    keys.set(encryptionKey, key);
    // A key that fails to derive (a malformed ENCRYPTION_KEY) is not remembered.
    key.catch(() => keys.delete(encryptionKey));
  }
  return key;
}

export async function issueSessionToken(encryptionKey: string | undefined, subject: InboxSubject, now = new Date()): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return sign(
    { aud: AUDIENCE, env: subject.environmentId, sub: subject.subscriberId, iat, exp: iat + SESSION_TTL_SECONDS },
    await keyOf(encryptionKey),
    ALGORITHM,
  );
}

const refused = () =>
  new ApiError(
    "unauthorized",
    "Start an Inbox session first (POST /novu/v1/inbox/session): the session token is missing, expired or not Clarion's.",
  );

/**
 * The subject of a `Bearer` session token. Exported for every route that takes one (the notification
 * and preference routes here, the realtime socket's `?token=`). A well-signed token still ends when
 * the environment's sessions were ended after it was issued (a rotated secret, a changed hash
 * requirement: both set `sessionsResetAt`; a PATCH that changes nothing sets nothing) or when its subscriber is gone (erased): one indexed read.
 * `iat` counts seconds, so a token issued in the second of the change still counts.
 */
export async function verifySessionToken(db: Db, encryptionKey: string | undefined, token: string | undefined): Promise<InboxSubject> {
  if (!token) throw refused();
  let payload: Record<string, unknown>;
  try {
    payload = await verify(token, await keyOf(encryptionKey), { alg: ALGORITHM, aud: AUDIENCE });
  } catch {
    throw refused();
  }
  const { aud, env, sub, iat } = payload;
  if (aud !== AUDIENCE || typeof env !== "string" || typeof sub !== "string" || typeof iat !== "number") throw refused();
  const current = await sessionState(db, env, sub);
  if (!current || current.subscriber === null || iat < Math.floor(current.changedAt.getTime() / 1000)) throw refused();
  return { environmentId: env, subscriberId: sub };
}

/** `Authorization: Bearer <token>`, as `@novu/js` sends it. */
export const bearerToken = (header: string | undefined) => /^Bearer\s+(\S+)$/i.exec(header ?? "")?.[1];
