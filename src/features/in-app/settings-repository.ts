import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { environments, inAppSettings } from "../../db/schema";
import { hex } from "../../lib/hex";
import { decryptJson, encryptJson } from "../../lib/secrets";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import type { SessionProfileWrites } from "../../contract/in-app-settings";

const aad = (environmentId: string) => `in_app:${environmentId}`;
const randomHex = (bytes: number) => hex(crypto.getRandomValues(new Uint8Array(bytes)));

export { subscriberHash } from "../../contract/subscriber-hash";

export interface InAppSettings {
  environmentId: string;
  applicationIdentifier: string;
  hmacSecret: string;
  hmacRequired: boolean;
  sessionProfileWrites: SessionProfileWrites;
}

/** What `PATCH /v1/in-app/settings` may change; a field left out keeps its value. */
export interface InAppSettingsChange {
  hmacRequired?: boolean;
  sessionProfileWrites?: SessionProfileWrites;
}

type Row = typeof inAppSettings.$inferSelect;

const opener =
  (encryptionKey: string | undefined) =>
  async (row: Row): Promise<InAppSettings> => ({
    environmentId: row.environmentId,
    applicationIdentifier: row.applicationIdentifier,
    hmacSecret: await decryptJson<string>(encryptionKey, row.hmacSecret, aad(row.environmentId)),
    hmacRequired: row.hmacRequired,
    sessionProfileWrites: row.sessionProfileWrites,
  });

/**
 * The settings of whichever environment owns an application identifier: unscoped on purpose, as
 * the Inbox's session request names the application, not the environment (it learns it here).
 */
export async function settingsByApplicationIdentifier(
  db: Db,
  encryptionKey: string | undefined,
  applicationIdentifier: string,
): Promise<InAppSettings | null> {
  const [row] = await db.select().from(inAppSettings).where(eq(inAppSettings.applicationIdentifier, applicationIdentifier)).limit(1);
  return row ? opener(encryptionKey)(row) : null;
}

/** What the audit log keeps of the settings: never the HMAC secret, only that it changed. */
const audited = (s: InAppSettings) => ({
  applicationIdentifier: s.applicationIdentifier,
  hmacRequired: s.hmacRequired,
  sessionProfileWrites: s.sessionProfileWrites,
});

/** An environment's first settings: hashes required but in `development`. Two first reads at once: the one that lost reads what the other wrote. */
async function insertFirstSettings(db: Db, environmentId: string, encryptionKey: string | undefined, now: Date) {
  const [environment] = await db.select({ slug: environments.slug }).from(environments).where(eq(environments.id, environmentId));
  await db
    .insert(inAppSettings)
    .values({
      environmentId,
      applicationIdentifier: randomHex(12),
      hmacSecret: await encryptJson(encryptionKey, randomHex(32), aad(environmentId)),
      hmacRequired: environment?.slug !== "development",
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing();
}

/**
 * An environment's Inbox identity, made on first read: a public application identifier and an
 * HMAC secret (kept encrypted like integration credentials). Hashes are required everywhere but
 * in `development`, where a team tries the Inbox before its backend signs anything.
 */
export function inAppSettingsRepository(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const open = opener(encryptionKey);
  const read = async () => (await db.select().from(inAppSettings).where(eq(inAppSettings.environmentId, environmentId)).limit(1))[0];

  return {
    async get(now = new Date()): Promise<InAppSettings> {
      const existing = await read();
      if (existing) return open(existing);
      await insertFirstSettings(db, environmentId, encryptionKey, now);
      return open((await read())!);
    },

    /**
     * Applies what differs from the stored settings. A change of nothing writes nothing (no
     * `updatedAt`, no audit entry) and ends no session; only a changed hash requirement ends the
     * sessions issued before it, as a rotated secret does.
     */
    async update(change: InAppSettingsChange, context: AuditContext, now = new Date()): Promise<InAppSettings> {
      const before = await this.get(now);
      const after: InAppSettings = {
        ...before,
        hmacRequired: change.hmacRequired ?? before.hmacRequired,
        sessionProfileWrites: change.sessionProfileWrites ?? before.sessionProfileWrites,
      };
      const hmacChanged = after.hmacRequired !== before.hmacRequired;
      if (!hmacChanged && after.sessionProfileWrites === before.sessionProfileWrites) return before;
      await db.batch([
        db
          .update(inAppSettings)
          .set({
            hmacRequired: after.hmacRequired,
            sessionProfileWrites: after.sessionProfileWrites,
            // A row from before `sessions_reset_at` keeps the moment its `updated_at` stood for.
            sessionsResetAt: hmacChanged ? now : sql`coalesce(${inAppSettings.sessionsResetAt}, ${inAppSettings.updatedAt})`,
            updatedAt: now,
          })
          .where(eq(inAppSettings.environmentId, environmentId)),
        auditStatement(db, context, {
          environmentId,
          resource: "in_app_settings",
          resourceId: before.applicationIdentifier,
          action: "updated",
          before: audited(before),
          after: audited(after),
        }),
      ]);
      return open((await read())!);
    },

    /** A new secret: every subscriberHash made with the old one stops working at once. */
    async rotateSecret(context: AuditContext, now = new Date()): Promise<InAppSettings> {
      const before = await this.get(now);
      await db.batch([
        db
          .update(inAppSettings)
          .set({ hmacSecret: await encryptJson(encryptionKey, randomHex(32), aad(environmentId)), sessionsResetAt: now, updatedAt: now })
          .where(eq(inAppSettings.environmentId, environmentId)),
        auditStatement(db, context, {
          environmentId,
          resource: "in_app_settings",
          resourceId: before.applicationIdentifier,
          action: "rotated",
          before: audited(before),
          after: { ...audited(before), hmacSecret: "rotated" },
        }),
      ]);
      return open((await read())!);
    },
  };
}
