import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { translations, translationSettings, translationVersions } from "../schema";
import type { TranslationKeys } from "../../contract/translations";
import type { Actor } from "../../env";
import { newId } from "../../lib/ids";
import { type AuditContext, auditStatement } from "./audit";
import { versionHistory } from "./versioned-content";

export type TranslationAction = (typeof translationVersions.$inferSelect)["action"];
export type TranslationRow = typeof translations.$inferSelect;

export const DEFAULT_LOCALE = "en";

/** The settings row is made by the first change; these are its values until then. */
const bumpRevision = (db: Db, environmentId: string, now: Date) =>
  db
    .insert(translationSettings)
    .values({ environmentId, defaultLocale: DEFAULT_LOCALE, revision: 1, updatedAt: now })
    .onConflictDoUpdate({
      target: translationSettings.environmentId,
      set: { revision: sql`${translationSettings.revision} + 1`, updatedAt: now },
    });

/** The version row of a locale's change, numbered from its row and the revision just taken, in the change's batch. */
const versionStatement = (
  db: Db,
  environmentId: string,
  locale: string,
  write: { action: TranslationAction; author: Actor; at: Date; deleted?: boolean },
) =>
  db.insert(translationVersions).select(
    sql`SELECT ${newId("trv")}, environment_id, locale, version + ${write.deleted ? 1 : 0},
        (SELECT revision FROM translation_settings WHERE environment_id = ${environmentId}),
        ${write.deleted ? sql`NULL` : sql`keys`}, ${write.action}, ${write.author.type}, ${write.author.id}, ${write.author.name}, ${write.at.getTime()}
      FROM translations WHERE environment_id = ${environmentId} AND locale = ${locale}`,
  );

/** A locale's row made or replaced, one version on. */
const upsertLocale = (db: Db, environmentId: string, locale: string, content: Pick<TranslationRow, "keys" | "keyRevisions">, now: Date) =>
  db
    .insert(translations)
    .values({
      environmentId,
      locale,
      ...content,
      // A locale deleted and made again continues its numbering: its old versions stay.
      version: sql`coalesce((SELECT max(version) FROM translation_versions WHERE environment_id = ${environmentId} AND locale = ${locale}), 0) + 1`,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoUpdate({
      target: [translations.environmentId, translations.locale],
      set: { ...content, version: sql`${translations.version} + 1`, updatedAt: now },
    });

/** Per key, the revision its text last changed at: kept for unchanged keys, this one for new or changed ones. */
function keyChanges(before: TranslationRow | undefined, keys: TranslationKeys, revision: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, value] of Object.entries(keys)) {
    const same = before !== undefined && JSON.stringify(before.keys[key]) === JSON.stringify(value);
    out[key] = same ? (before.keyRevisions[key] ?? revision) : revision;
  }
  return out;
}

const CACHE_SIZE = 64;
const pinned = new Map<string, Map<string, TranslationKeys>>();

/**
 * Every locale's keys as they were at `revision` (a trigger's pin): per locale, its version with
 * the highest revision not above it, deleted ones left out. Revisions never change, so each is
 * read once per isolate. Without a pin (older triggers), the current texts.
 */
export async function translationsAt(db: Db, environmentId: string, revision: number | undefined): Promise<Map<string, TranslationKeys>> {
  if (revision === undefined) {
    const rows = await db
      .select({ locale: translations.locale, keys: translations.keys })
      .from(translations)
      .where(eq(translations.environmentId, environmentId));
    return new Map(rows.map((r) => [r.locale, r.keys]));
  }
  const cacheKey = `${environmentId}\u0000${revision}`;
  const hit = pinned.get(cacheKey);
  if (hit) return hit;
  const rows = await db
    .select({ locale: translationVersions.locale, keys: translationVersions.keys })
    .from(translationVersions)
    .where(
      and(
        eq(translationVersions.environmentId, environmentId),
        sql`${translationVersions.revision} = (SELECT max(v.revision) FROM translation_versions v
          WHERE v.environment_id = "translation_versions"."environment_id" AND v.locale = "translation_versions"."locale" AND v.revision <= ${revision})`,
      ),
    );
  const found = new Map(rows.flatMap((r) => (r.keys ? [[r.locale, r.keys] as const] : [])));
  if (pinned.size >= CACHE_SIZE) pinned.delete(pinned.keys().next().value as string);
  pinned.set(cacheKey, found);
  return found;
}

/** An environment's default locale and its translations' revision (what a trigger pins). */
export function translationSettingsRepository(db: Db, environmentId: string) {
  const settings = async () => {
    const [found] = await db.select().from(translationSettings).where(eq(translationSettings.environmentId, environmentId));
    return { defaultLocale: found?.defaultLocale ?? DEFAULT_LOCALE, revision: found?.revision ?? 0 };
  };
  return {
    settings,

    async setDefaultLocale(defaultLocale: string, context: AuditContext, now = new Date()) {
      const before = await settings();
      if (before.defaultLocale === defaultLocale) return { defaultLocale };
      await db.batch([
        db
          .insert(translationSettings)
          .values({ environmentId, defaultLocale, revision: 1, updatedAt: now })
          .onConflictDoUpdate({
            target: translationSettings.environmentId,
            set: { defaultLocale, revision: sql`${translationSettings.revision} + 1`, updatedAt: now },
          }),
        auditStatement(db, context, {
          environmentId,
          resource: "translation_settings",
          resourceId: environmentId,
          action: "updated",
          before: { defaultLocale: before.defaultLocale },
          after: { defaultLocale },
        }),
      ]);
      return { defaultLocale };
    },
  };
}

/** A locale's versions, newest first. */
const localeHistory = (db: Db, environmentId: string, locale: string) =>
  versionHistory<typeof translationVersions.$inferSelect>(
    db,
    translationVersions,
    translationVersions.version,
    and(eq(translationVersions.environmentId, environmentId), eq(translationVersions.locale, locale)),
  );

/** The statements of one locale's change, for a save and for a caller that batches many (a push). */
function translationStatements(db: Db, environmentId: string) {
  const mine = eq(translations.environmentId, environmentId);
  /**
   * A locale's new keys (after the revision's move, `revision` being the one it moves to): its
   * row, its version and its audit entry.
   */
  const put = (
    change: { locale: string; keys: TranslationKeys; before: TranslationRow | undefined; revision: number },
    context: AuditContext,
    options: { action?: TranslationAction; author?: Actor },
    now: Date,
  ) => {
    const { locale, keys, before } = change;
    const action = options.action ?? (before ? "updated" : "created");
    return [
      upsertLocale(db, environmentId, locale, { keys, keyRevisions: keyChanges(before, keys, change.revision) }, now),
      versionStatement(db, environmentId, locale, { action, author: options.author ?? context.actor, at: now }),
      auditStatement(db, context, {
        environmentId,
        resource: "translation",
        resourceId: locale,
        action: action === "promoted" ? "promoted" : action,
        before: before ? before.keys : null,
        after: keys,
      }),
    ] as const;
  };
  /** A locale's removal (after the revision's move): its last version, the row gone, the audit entry. */
  const remove = (before: TranslationRow, context: AuditContext, now: Date) =>
    [
      versionStatement(db, environmentId, before.locale, { action: "deleted", author: context.actor, at: now, deleted: true }),
      db.delete(translations).where(and(mine, eq(translations.locale, before.locale))),
      auditStatement(db, context, {
        environmentId,
        resource: "translation",
        resourceId: before.locale,
        action: "deleted",
        before: before.keys,
        after: null,
      }),
    ] as const;

  return { put, remove };
}

/** An environment's translations: one row per locale, their versions, and the default locale. */
export function translationsRepository(db: Db, environmentId: string) {
  const mine = eq(translations.environmentId, environmentId);
  const config = translationSettingsRepository(db, environmentId);
  const history = (locale: string) => localeHistory(db, environmentId, locale);
  const row = async (locale: string) => {
    const [found] = await db
      .select()
      .from(translations)
      .where(and(mine, eq(translations.locale, locale)));
    return found;
  };
  const { put: putStatements, remove: removeStatements } = translationStatements(db, environmentId);

  return {
    ...config,

    /** Statements for a caller that batches many changes (a push): one revision move first, then these. */
    statements: { bumpRevision: (now: Date) => bumpRevision(db, environmentId, now), put: putStatements, remove: removeStatements },

    async list() {
      return db.select().from(translations).where(mine).orderBy(asc(translations.locale));
    },

    find: row,

    /** The locale's keys replaced by `keys`: a new version unless nothing changed. */
    async put(
      locale: string,
      keys: TranslationKeys,
      context: AuditContext,
      options: { action?: TranslationAction; author?: Actor; now?: Date; ifMatch?: number[] } = {},
    ): Promise<{ row: TranslationRow; changed: boolean } | { stale: number }> {
      const now = options.now ?? new Date();
      const [before, settings] = await Promise.all([row(locale), config.settings()]);
      if (options.ifMatch && !options.ifMatch.includes(before?.version ?? 0)) return { stale: before?.version ?? 0 };
      if (before && JSON.stringify(before.keys) === JSON.stringify(keys)) return { row: before, changed: false };
      await db.batch([
        bumpRevision(db, environmentId, now),
        ...putStatements({ locale, keys, before, revision: settings.revision + 1 }, context, options, now),
      ]);
      return { row: (await row(locale))!, changed: true };
    },

    /** False when there was no such locale. Its versions stay: triggers pinned before still render with it. */
    async remove(locale: string, context: AuditContext, now = new Date(), ifMatch?: number[]): Promise<boolean | { stale: number }> {
      const before = await row(locale);
      if (!before) return false;
      if (ifMatch && !ifMatch.includes(before.version)) return { stale: before.version };
      await db.batch([bumpRevision(db, environmentId, now), ...removeStatements(before, context, now)]);
      return true;
    },

    /** The last 100, newest first (a deletion among them). */
    versions: (locale: string) => history(locale).list(100),
    version: (locale: string, version: number) => history(locale).at(version),
  };
}

export type TranslationsRepository = ReturnType<typeof translationsRepository>;
