import { eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { preferenceLinkSettings } from "../schema";
import { decryptJson, encryptJson } from "../../lib/secrets";
import { newLinkSecret } from "../../lib/link-tokens";
import { type AuditContext, auditStatement } from "./audit";

export type Branding = {
  brandName: string | null;
  logoUrl: string | null;
  accentColor: string | null;
  /** Per locale, the page texts that replace the English ones (features/preference-links/messages.ts). */
  translations: Record<string, Record<string, string>>;
};
export type BrandingUpdate = Partial<Omit<Branding, "translations">> & { translations?: Branding["translations"] | null };
export type LinkSettings = Branding & { secret: string };

const aad = (environmentId: string) => `preference-links:${environmentId}`;

/** The stored row with its secret decrypted. */
const opened = async (
  encryptionKey: string | undefined,
  environmentId: string,
  r: typeof preferenceLinkSettings.$inferSelect,
): Promise<LinkSettings> => ({
  secret: await decryptJson<string>(encryptionKey, r.secret, aad(environmentId)),
  brandName: r.brandName,
  logoUrl: r.logoUrl,
  accentColor: r.accentColor,
  translations: r.translations ?? {},
});

/** An environment's link secret and branding; the row, and its secret, are made on first use. */
export function preferenceLinksRepository(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const row = () => db.select().from(preferenceLinkSettings).where(eq(preferenceLinkSettings.environmentId, environmentId)).limit(1);
  const sealed = async () => encryptJson(encryptionKey, newLinkSecret(), aad(environmentId));
  const open = (r: typeof preferenceLinkSettings.$inferSelect) => opened(encryptionKey, environmentId, r);

  return {
    /** Without creating anything: a token naming an environment that never minted one is simply invalid. */
    async find(): Promise<LinkSettings | undefined> {
      const [found] = await row();
      return found ? open(found) : undefined;
    },

    async get(now = new Date()): Promise<LinkSettings> {
      return this.opened((await row())[0] ?? null, now);
    },

    /** A row read already (delivery's one read, send-settings.ts) opened, or, without one, the first minted. */
    async opened(found: typeof preferenceLinkSettings.$inferSelect | null, now = new Date()): Promise<LinkSettings> {
      return found ? open(found) : this.mint(now);
    },

    /**
     * The first secret, in one statement. Two first mints may race: the first insert wins, and the
     * other's no-op update answers the row it left.
     */
    async mint(now = new Date()): Promise<LinkSettings> {
      const [made] = await db
        .insert(preferenceLinkSettings)
        .values({ environmentId, secret: await sealed(), updatedAt: now })
        .onConflictDoUpdate({ target: preferenceLinkSettings.environmentId, set: { secret: sql`${preferenceLinkSettings.secret}` } })
        .returning();
      return open(made!);
    },

    /** The audit entry says that the secret changed, never what it is. */
    async rotate(context: AuditContext, now = new Date()): Promise<void> {
      const secret = await sealed();
      const change = { secret: "rotated", rotatedAt: now.toISOString() };
      await db.batch([
        db
          .insert(preferenceLinkSettings)
          .values({ environmentId, secret, updatedAt: now })
          .onConflictDoUpdate({ target: preferenceLinkSettings.environmentId, set: { secret, updatedAt: now } }),
        auditStatement(db, context, {
          environmentId,
          resource: "preference_link_settings",
          resourceId: environmentId,
          action: "rotated",
          before: null,
          after: change,
        }),
      ]);
    },

    /** Fields given replace the stored ones; `null` clears one. */
    async brand(update: BrandingUpdate, context: AuditContext, now = new Date()): Promise<Branding> {
      const { secret: _secret, ...current } = await this.get(now);
      const next = {
        ...current,
        ...update,
        translations: update.translations === undefined ? current.translations : (update.translations ?? {}),
      };
      await db.batch([
        db
          .update(preferenceLinkSettings)
          .set({ ...next, updatedAt: now })
          .where(eq(preferenceLinkSettings.environmentId, environmentId)),
        auditStatement(db, context, {
          environmentId,
          resource: "preference_link_settings",
          resourceId: environmentId,
          action: "updated",
          before: current,
          after: next,
        }),
      ]);
      return next;
    },
  };
}

export type PreferenceLinksRepository = ReturnType<typeof preferenceLinksRepository>;
