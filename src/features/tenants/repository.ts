import { and, asc, eq, gt, inArray, or, sql } from "drizzle-orm";
import { chunk } from "../../db/batch";
import type { Db } from "../../db/client";
import { integrations, subscriberTenantPreferences, tenants } from "../../db/schema";
import { type AuditContext, auditStatement } from "../../db/queries/audit";
import { containing } from "../../lib/like";
import { keysetPage } from "../../lib/pagination";
import { type Tenant, type TenantInput, type TenantUpdate, tenantCursor } from "./schemas";

type Row = typeof tenants.$inferSelect;

export const toTenant = (row: Row): Tenant => ({
  id: row.tenantId,
  name: row.name,
  data: row.data ?? {},
  brand: row.brand ?? {},
  preferences: row.preferences ?? {},
  createdAt: row.createdAt.toISOString(),
  updatedAt: row.updatedAt.toISOString(),
});

/** What the audit log keeps of a tenant: its API view without the timestamps. */
const audited = ({ createdAt: _c, updatedAt: _u, ...rest }: Tenant) => rest;

/** The row of tenant `id` in this environment, and the tenant it holds. */
function tenantScope(db: Db, environmentId: string) {
  const byId = (id: string) => and(eq(tenants.environmentId, environmentId), eq(tenants.tenantId, id));
  async function find(id: string): Promise<Tenant | null> {
    const [row] = await db.select().from(tenants).where(byId(id)).limit(1);
    return row ? toTenant(row) : null;
  }
  return { byId, find };
}

/** Reading tenants: one, a page, and which ids exist. */
function tenantReads(db: Db, environmentId: string, { find }: ReturnType<typeof tenantScope>) {
  return {
    find,

    async list(limit: number, cursor?: string, q?: string): Promise<{ data: Tenant[]; nextCursor: string | null }> {
      const [after] = tenantCursor.read(cursor) ?? [];
      const term = q ? containing(q) : undefined;
      const rows = await db
        .select()
        .from(tenants)
        .where(
          and(
            eq(tenants.environmentId, environmentId),
            after ? gt(tenants.tenantId, after) : undefined,
            term ? or(sql`${tenants.tenantId} LIKE ${term} ESCAPE '\\'`, sql`${tenants.name} LIKE ${term} ESCAPE '\\'`) : undefined,
          ),
        )
        .orderBy(asc(tenants.tenantId))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => tenantCursor.encode([last.tenantId]));
      return { data: page.rows.map(toTenant), nextCursor: page.nextCursor };
    },

    /** Which of `ids` are tenants of the environment (the accept path's check of a tenant named by id). */
    async existing(ids: string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const [first, ...rest] = chunk(ids, 99).map((part) =>
        db
          .select({ id: tenants.tenantId })
          .from(tenants)
          .where(and(eq(tenants.environmentId, environmentId), inArray(tenants.tenantId, part))),
      );
      return new Set((await db.batch([first!, ...rest])).flat().map((r) => r.id));
    },
  };
}

/** Creating, changing and deleting tenants, each with its audit entry in the same batch. */
function tenantWrites(db: Db, environmentId: string, { byId, find }: ReturnType<typeof tenantScope>) {
  return {
    /** Returns null when the id is already taken. */
    async create(input: TenantInput, context: AuditContext, now = new Date()): Promise<Tenant | null> {
      const [[row]] = await db.batch([
        db
          .insert(tenants)
          .values({
            environmentId,
            tenantId: input.id,
            name: input.name,
            data: input.data ?? null,
            brand: input.brand ?? null,
            preferences: input.preferences ?? null,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing()
          .returning(),
        auditStatement(db, context, {
          environmentId,
          resource: "tenant",
          resourceId: input.id,
          action: "created",
          before: null,
          after: { id: input.id, name: input.name, data: input.data ?? {}, brand: input.brand ?? {}, preferences: input.preferences ?? {} },
        }),
      ]);
      return row ? toTenant(row) : null;
    },

    async update(id: string, input: TenantUpdate, context: AuditContext, now = new Date()): Promise<Tenant | null> {
      const current = await find(id);
      if (!current) return null;
      const set = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.data !== undefined ? { data: input.data } : {}),
        ...(input.brand !== undefined ? { brand: input.brand } : {}),
        ...(input.preferences !== undefined ? { preferences: input.preferences } : {}),
        updatedAt: now,
      };
      const [[row]] = await db.batch([
        db.update(tenants).set(set).where(byId(id)).returning(),
        auditStatement(db, context, {
          environmentId,
          resource: "tenant",
          resourceId: id,
          action: "updated",
          before: audited(current),
          after: {
            ...audited(current),
            ...(input.name !== undefined ? { name: input.name } : {}),
            ...(input.data !== undefined ? { data: input.data ?? {} } : {}),
            ...(input.brand !== undefined ? { brand: input.brand ?? {} } : {}),
            ...(input.preferences !== undefined ? { preferences: input.preferences ?? {} } : {}),
          },
        }),
      ]);
      return row ? toTenant(row) : null;
    },
  };
}

/** Deleting a tenant with what is its own. */
function tenantRemoval(db: Db, environmentId: string, { byId, find }: ReturnType<typeof tenantScope>) {
  return {
    /**
     * Deletes the tenant, its settings, its integrations (they send for it alone) and its
     * subscribers' preferences for it; subscribers and messages keep its id.
     */
    async remove(id: string, context: AuditContext): Promise<boolean> {
      const current = await find(id);
      if (!current) return false;
      const [rows] = await db.batch([
        db.delete(tenants).where(byId(id)).returning({ id: tenants.tenantId }),
        auditStatement(db, context, {
          environmentId,
          resource: "tenant",
          resourceId: id,
          action: "deleted",
          before: audited(current),
          after: null,
        }),
        db
          .delete(subscriberTenantPreferences)
          .where(and(eq(subscriberTenantPreferences.environmentId, environmentId), eq(subscriberTenantPreferences.tenantId, id))),
        db.delete(integrations).where(and(eq(integrations.environmentId, environmentId), eq(integrations.tenantId, id))),
      ]);
      return rows.length > 0;
    },
  };
}

/** Tenants of one environment: the environment is fixed once, so no query can forget it. */
export function tenantsRepository(db: Db, environmentId: string) {
  const scope = tenantScope(db, environmentId);
  return {
    ...tenantReads(db, environmentId, scope),
    ...tenantWrites(db, environmentId, scope),
    ...tenantRemoval(db, environmentId, scope),
  };
}
