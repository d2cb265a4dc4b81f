import { eq } from "drizzle-orm";
import type { Db } from "../../db/client";
import { apiKeys, environments } from "../../db/schema";
import { type AuditChange, type AuditContext, auditStatement } from "../../db/queries/audit";

/** What the environment and key records share: the handle, their audit entries, and lookups by slug and key id. */
export function environmentsScope(db: Db) {
  const audit = (context: AuditContext, change: AuditChange, when: "changed" | "always" = "changed") =>
    auditStatement(db, context, change, when);
  const bySlug = async (slug: string) => (await db.select().from(environments).where(eq(environments.slug, slug)).limit(1))[0];

  async function keyWithSlug(id: string) {
    const [row] = await db
      .select({ key: apiKeys, slug: environments.slug })
      .from(apiKeys)
      .innerJoin(environments, eq(environments.id, apiKeys.environmentId))
      .where(eq(apiKeys.id, id))
      .limit(1);
    return row;
  }

  return { db, audit, bySlug, keyWithSlug };
}

export type EnvironmentsScope = ReturnType<typeof environmentsScope>;
