import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../client";
import { brands, brandVersions, preferenceLinkSettings } from "../schema";
import { type BrandDefinition, DEFAULT_BRAND } from "../../contract/brand";
import type { Actor } from "../../env";
import { newId } from "../../lib/ids";
import { type AuditContext, auditStatement } from "./audit";
import { versionHistory } from "./versioned-content";

type BrandVersionRow = typeof brandVersions.$inferSelect;
export type BrandAction = BrandVersionRow["action"];

export interface StoredBrand {
  definition: BrandDefinition;
  version: number;
  updatedAt: Date | null;
}

type Legacy = Pick<typeof preferenceLinkSettings.$inferSelect, "brandName" | "logoUrl" | "accentColor">;

/**
 * Before the brand kit the preference page had its own name, logo and accent colour: an
 * environment that set them and never saved a brand keeps them, as a brand, without a backfill.
 */
export function legacyBrand(legacy: Legacy | undefined): BrandDefinition {
  if (!legacy) return DEFAULT_BRAND;
  const accent = legacy.accentColor ?? DEFAULT_BRAND.colors.primary;
  return {
    ...DEFAULT_BRAND,
    name: legacy.brandName,
    logoUrl: legacy.logoUrl,
    colors: { ...DEFAULT_BRAND.colors, primary: accent, link: accent },
  };
}

/** The preference page's own branding, from before the brand kit. */
const legacyColumns = {
  brandName: preferenceLinkSettings.brandName,
  logoUrl: preferenceLinkSettings.logoUrl,
  accentColor: preferenceLinkSettings.accentColor,
};

const CACHE_SIZE = 256;
const pinned = new Map<string, BrandDefinition>();

/**
 * The brand a trigger was accepted with. A version is never changed, so it is kept in the isolate
 * for every later send; version 0 (no brand saved then) reads the legacy branding as it is now.
 */
export async function brandAt(db: Db, environmentId: string, version: number | undefined): Promise<BrandDefinition> {
  if (version === undefined) return (await brandRepository(db, environmentId).get()).definition;
  if (version === 0) {
    const [legacy] = await db
      .select(legacyColumns)
      .from(preferenceLinkSettings)
      .where(eq(preferenceLinkSettings.environmentId, environmentId));
    return legacyBrand(legacy);
  }
  const key = `${environmentId}\u0000${version}`;
  const hit = pinned.get(key);
  if (hit) return hit;
  const [row] = await db
    .select({ definition: brandVersions.definition })
    .from(brandVersions)
    .where(and(eq(brandVersions.environmentId, environmentId), eq(brandVersions.version, version)));
  const definition = row?.definition ?? DEFAULT_BRAND;
  if (pinned.size >= CACHE_SIZE) pinned.delete(pinned.keys().next().value as string);
  pinned.set(key, definition);
  return definition;
}

export type BrandSave = { status: "ok"; brand: StoredBrand; changed: boolean } | { status: "stale"; current: number };

/** An environment's brand, its versions, and the legacy preference-page branding it replaced. */
export function brandRepository(db: Db, environmentId: string) {
  const history = versionHistory<BrandVersionRow>(db, brandVersions, brandVersions.version, eq(brandVersions.environmentId, environmentId));
  return {
    async get(): Promise<StoredBrand> {
      const [rows, legacy] = await db.batch([
        db.select().from(brands).where(eq(brands.environmentId, environmentId)),
        db.select(legacyColumns).from(preferenceLinkSettings).where(eq(preferenceLinkSettings.environmentId, environmentId)),
      ]);
      const row = rows[0];
      if (row) return { definition: row.definition, version: row.version, updatedAt: row.updatedAt };
      return { definition: legacyBrand(legacy[0]), version: 0, updatedAt: null };
    },

    /**
     * Saves a new version unless nothing changed. The row moves only from the version read
     * (`ifVersion`), so of two concurrent saves one lands and the other is told it is stale.
     */
    async save(
      definition: BrandDefinition,
      context: AuditContext,
      options: { action?: BrandAction; author?: Actor; ifVersion?: number; now?: Date } = {},
    ): Promise<BrandSave> {
      const now = options.now ?? new Date();
      const current = await this.get();
      if (options.ifVersion !== undefined && options.ifVersion !== current.version) return { status: "stale", current: current.version };
      if (current.version > 0 && JSON.stringify(current.definition) === JSON.stringify(definition)) {
        return { status: "ok", brand: current, changed: false };
      }
      const version = current.version + 1;
      await db.batch(brandSaveStatements(db, environmentId, current, definition, context, options, now));
      const saved = await this.get();
      if (saved.version !== version || JSON.stringify(saved.definition) !== JSON.stringify(definition)) {
        return { status: "stale", current: saved.version };
      }
      return { status: "ok", brand: saved, changed: true };
    },

    /** A new version's statements, for a caller that batches many changes (a push). */
    saveStatements: (current: StoredBrand, definition: BrandDefinition, context: AuditContext, author: Actor, now: Date) =>
      brandSaveStatements(db, environmentId, current, definition, context, { author }, now),

    /** The last 100, newest first. */
    versions: () => history.list(100),
    version: (n: number) => history.at(n),
  };
}

export type BrandRepository = ReturnType<typeof brandRepository>;

/** A brand's new version: the row, moved only from the version read, its version row and its audit entry. */
export function brandSaveStatements(
  db: Db,
  environmentId: string,
  current: StoredBrand,
  definition: BrandDefinition,
  context: AuditContext,
  options: { action?: BrandAction; author?: Actor },
  now: Date,
) {
  const version = current.version + 1;
  const author = options.author ?? context.actor;
  const action = options.action ?? (current.version === 0 ? "created" : "updated");
  return [
    db
      .insert(brands)
      .values({ environmentId, version, definition, updatedAt: now })
      .onConflictDoUpdate({
        target: brands.environmentId,
        set: { version, definition, updatedAt: now },
        setWhere: eq(brands.version, current.version),
      }),
    db
      .insert(brandVersions)
      .select(
        sql`SELECT ${newId("brv")}, environment_id, version, definition, ${action}, ${author.type}, ${author.id}, ${author.name}, ${now.getTime()}
              FROM brands WHERE environment_id = ${environmentId} AND version = ${version} AND updated_at = ${now.getTime()}`,
      )
      .onConflictDoNothing(),
    auditStatement(db, context, {
      environmentId,
      resource: "brand",
      resourceId: environmentId,
      action: action === "promoted" ? "promoted" : action,
      before: current.version === 0 ? null : current.definition,
      after: definition,
    }),
  ] as const;
}
