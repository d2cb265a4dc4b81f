import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { inAppSettings, subscribers } from "../schema";

/** What an Inbox session token says of itself, in seconds as JWT counts them. */
export interface InboxSessionClaims {
  issuedAt: number;
  expiresAt: number;
}

/**
 * What a session is checked against: when the environment's Inbox sessions were last ended (a
 * rotated secret, a changed hash requirement; rows from before `sessions_reset_at` existed fall
 * back to the settings' last change), and when its subscriber was created (null once erased).
 */
export interface InboxSessionState {
  settingsChangedAt: Date;
  subscriberCreatedAt: Date | null;
}

/**
 * One indexed read of an environment's subscriber, for the REST routes (every request) and the
 * realtime socket (before every push). Undefined when the environment has no Inbox settings.
 */
export async function inboxSessionState(db: Db, environmentId: string, subscriberId: string): Promise<InboxSessionState | undefined> {
  const [current] = await db
    .select({
      settingsChangedAt: sql<Date>`coalesce(${inAppSettings.sessionsResetAt}, ${inAppSettings.updatedAt})`.mapWith(inAppSettings.updatedAt),
      subscriberCreatedAt: subscribers.createdAt,
    })
    .from(inAppSettings)
    .leftJoin(subscribers, and(eq(subscribers.environmentId, inAppSettings.environmentId), eq(subscribers.subscriberId, subscriberId)))
    .where(eq(inAppSettings.environmentId, environmentId))
    .limit(1);
  return current;
}

const seconds = (at: Date) => Math.floor(at.getTime() / 1000);

/**
 * Whether a session still holds: not expired, issued after the Inbox sessions were last ended
 * (a rotated secret, `hmacRequired` changed) and after its subscriber was created. The last binds a
 * token to one incarnation of a subscriberId: erased and created again, it is someone else.
 * `iat` counts seconds, so a token issued in the second of a change still counts.
 */
export function sessionHolds(claims: InboxSessionClaims, state: InboxSessionState | undefined, now = new Date()): boolean {
  if (!state || state.subscriberCreatedAt === null) return false;
  return (
    claims.expiresAt > seconds(now) &&
    claims.issuedAt >= seconds(state.settingsChangedAt) &&
    claims.issuedAt >= seconds(state.subscriberCreatedAt)
  );
}
