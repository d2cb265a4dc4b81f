import { and, asc, eq, isNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { environments, integrations, layouts, partials, variables, workflows } from "../../db/schema";
import { layoutDefinitionOf } from "../layouts/repository";
import { definitionOf } from "../workflows/repository";
import { brandRepository } from "../../db/queries/brand";
import { translationsRepository } from "../../db/queries/translations";

/** A deployment's workflows are counted in the tens; the diff reads them all in one query per environment. */
const MAX_WORKFLOWS = 1000;

/** What a promotion reads of an environment: live workflows, variables (a secret's value never), integrations by name. */
export function promotionReads(db: Db) {
  return {
    async environment(slug: string) {
      const [row] = await db.select({ id: environments.id, slug: environments.slug }).from(environments).where(eq(environments.slug, slug));
      return row;
    },

    async contents(environmentId: string) {
      const texts = translationsRepository(db, environmentId);
      const content = Promise.all([brandRepository(db, environmentId).get(), texts.list(), texts.settings()]);
      const [flows, vars, ints, lays, parts] = await db.batch([
        db
          .select()
          .from(workflows)
          .where(and(eq(workflows.environmentId, environmentId), isNull(workflows.deletedAt)))
          .orderBy(asc(workflows.key))
          .limit(MAX_WORKFLOWS),
        db
          .select({ key: variables.key, secret: variables.secret, value: variables.value })
          .from(variables)
          .where(eq(variables.environmentId, environmentId))
          .orderBy(asc(variables.key)),
        db
          .select({ provider: integrations.provider, name: integrations.name, channel: integrations.channel })
          .from(integrations)
          // A tenant's integrations belong with the tenant, which is data a promotion leaves alone.
          .where(and(eq(integrations.environmentId, environmentId), isNull(integrations.tenantId)))
          .orderBy(asc(integrations.provider), asc(integrations.name)),
        db.select().from(layouts).where(eq(layouts.environmentId, environmentId)).orderBy(asc(layouts.key)),
        db.select().from(partials).where(eq(partials.environmentId, environmentId)).orderBy(asc(partials.key)),
      ]);
      const [brand, locales, settings] = await content;
      return {
        brand,
        translations: new Map(locales.map((row) => [row.locale, row])),
        defaultLocale: settings.defaultLocale,
        workflows: new Map(
          flows.map((row) => [
            row.key,
            { version: row.version, definition: definitionOf({ ...row, payloadSchema: row.payloadSchema ?? null }) },
          ]),
        ),
        // A secret's stored value is ciphertext, and never leaves this module.
        variables: new Map(vars.map((v) => [v.key, v.secret ? { secret: true as const } : { secret: false as const, value: v.value }])),
        integrations: ints,
        layouts: new Map(lays.map((l) => [l.key, { version: l.version, definition: layoutDefinitionOf(l) }])),
        partials: new Map(
          parts.map((p) => [
            p.key,
            { version: p.version, definition: { key: p.key, name: p.name, description: p.description, content: p.content, type: p.type } },
          ]),
        ),
      };
    },
  };
}

export type EnvironmentContents = Awaited<ReturnType<ReturnType<typeof promotionReads>["contents"]>>;
