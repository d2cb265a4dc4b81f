// The Inbox session token: what a browser holds instead of a key. It names one subscriber in one
// environment and expires; it is signed with a key derived from ENCRYPTION_KEY for this use only.
import { sign, verify } from "hono/jwt";
import type { Db } from "../../db/client";
import { type InboxSessionClaims, inboxSessionState, sessionHolds } from "../../db/queries/inbox-session";
import { ApiError } from "../../lib/errors";
import { signingKey } from "../../lib/secrets";

/** `@novu/js` never renews its token: a day outlives a working session, and a reload starts a new one. */
export const SESSION_TTL_SECONDS = 24 * 60 * 60;
const AUDIENCE = "clarion-inbox";
const ALGORITHM = "HS256";

/** Who an Inbox request acts for. */
export interface InboxSubject {
  environmentId: string;
  subscriberId: string;
  /** The session's context key (contract/inbox-context.ts): '' for a session without a context. */
  context: string;
  /** The context's tenant, if it names one: the Inbox's preferences are the subscriber's inside it. */
  tenantId: string | null;
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

export async function issueSessionToken(
  encryptionKey: string | undefined,
  subject: Omit<InboxSubject, "context" | "tenantId"> & Partial<InboxSubject>,
  now = new Date(),
): Promise<string> {
  const iat = Math.floor(now.getTime() / 1000);
  return sign(
    {
      aud: AUDIENCE,
      env: subject.environmentId,
      sub: subject.subscriberId,
      iat,
      exp: iat + SESSION_TTL_SECONDS,
      // Only a context's session carries these: a token without them is a session of no context.
      ...(subject.context ? { ctx: subject.context } : {}),
      ...(subject.tenantId ? { ten: subject.tenantId } : {}),
    },
    await keyOf(encryptionKey),
    ALGORITHM,
  );
}

const REFUSED = "Start an Inbox session first (POST /novu/v1/inbox/session): the session token is missing, expired or not Clarion's.";
const refused = () => new ApiError("unauthorized", REFUSED);

/**
 * The refusal of a token Clarion signed whose session has since ended (expired, the Inbox settings
 * changed, the subscriber erased or created again): a browser's leftover, not a guess. The socket
 * does not count it as a failed authentication (../socket.ts).
 */
export class SessionEnded extends ApiError {
  constructor() {
    super("unauthorized", REFUSED);
  }
}

/** A verified token: whom it acts for, and when it was issued and ends (what an open socket checks again before each push). */
export type VerifiedSession = InboxSubject & InboxSessionClaims;

/**
 * The subject of a `Bearer` session token. Exported for every route that takes one (the notification
 * and preference routes here, the realtime socket's `?token=`). A well-signed token still ends when
 * the environment's sessions were ended after it was issued (a rotated secret, a changed hash
 * requirement: both set `sessionsResetAt`; a PATCH that changes nothing sets nothing), when its
 * subscriber is gone (erased), or when the subscriberId was created again after it was issued
 * (another person): one indexed read (db/queries/inbox-session.ts).
 */
export async function verifySessionToken(db: Db, encryptionKey: string | undefined, token: string | undefined): Promise<VerifiedSession> {
  if (!token) throw refused();
  let payload: Record<string, unknown>;
  try {
    // Expiry is checked below with the rest of the session (sessionHolds), so that an expired token is told from a forged one.
    payload = await verify(token, await keyOf(encryptionKey), { alg: ALGORITHM, aud: AUDIENCE, exp: false });
  } catch {
    throw refused();
  }
  const { aud, env, sub, iat, exp, ctx = "", ten = null } = payload;
  if (
    aud !== AUDIENCE ||
    typeof env !== "string" ||
    typeof sub !== "string" ||
    typeof iat !== "number" ||
    typeof exp !== "number" ||
    typeof ctx !== "string" ||
    (ten !== null && typeof ten !== "string")
  ) {
    throw refused();
  }
  const claims = { issuedAt: iat, expiresAt: exp };
  if (claims.expiresAt <= Math.floor(Date.now() / 1000)) throw new SessionEnded();
  if (!sessionHolds(claims, await inboxSessionState(db, env, sub))) throw new SessionEnded();
  return { environmentId: env, subscriberId: sub, context: ctx, tenantId: ten, ...claims };
}

/** `Authorization: Bearer <token>`, as `@novu/js` sends it. */
export const bearerToken = (header: string | undefined) => /^Bearer\s+(\S+)$/i.exec(header ?? "")?.[1];
