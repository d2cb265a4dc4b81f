// Apart from the object's class, so the Worker's side (client.ts) imports no `cloudflare:workers`
// (scripts load app.ts in Node).
import type { InboxSessionClaims } from "../../db/queries/inbox-session";

/** Set by the Worker only (client.ts; the object is not reachable from outside): whose socket an upgrade opens. */
export const SOCKET_ENVIRONMENT_HEADER = "x-clarion-environment";
export const SOCKET_SUBSCRIBER_HEADER = "x-clarion-subscriber";
/** The session token's `iat` and `exp`: a socket lives no longer than the session it was opened with. */
export const SOCKET_ISSUED_AT_HEADER = "x-clarion-session-issued-at";
export const SOCKET_EXPIRES_AT_HEADER = "x-clarion-session-expires-at";
/** The session's context key, URI-encoded (ids may be any text): the socket receives only that context's notifications. */
export const SOCKET_CONTEXT_HEADER = "x-clarion-session-context";

/** Whose presence a socket counts in. */
export interface SocketOwner {
  environmentId: string;
  subscriberId: string;
}

/** Kept on each socket (it survives hibernation): whose presence a close ends, and the session checked again before each push. */
export type SocketSession = SocketOwner & InboxSessionClaims & { context?: string };

/** The session an upgrade request names, or null when the Worker did not name it whole. */
export function sessionOfUpgrade(headers: Headers): SocketSession | null {
  const environmentId = headers.get(SOCKET_ENVIRONMENT_HEADER) ?? "";
  const subscriberId = headers.get(SOCKET_SUBSCRIBER_HEADER) ?? "";
  const issuedAt = Number(headers.get(SOCKET_ISSUED_AT_HEADER));
  const expiresAt = Number(headers.get(SOCKET_EXPIRES_AT_HEADER));
  if (!environmentId || !subscriberId || !Number.isInteger(issuedAt) || !Number.isInteger(expiresAt) || issuedAt <= 0 || expiresAt <= 0)
    return null;
  let context: string;
  try {
    context = decodeURIComponent(headers.get(SOCKET_CONTEXT_HEADER) ?? "");
  } catch {
    return null;
  }
  return { environmentId, subscriberId, issuedAt, expiresAt, context };
}
