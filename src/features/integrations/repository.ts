import { and, asc, eq, gt, ne } from "drizzle-orm";
import type { Db } from "../../db/client";
import { integrations } from "../../db/schema";
import { toConfig } from "../../delivery/integrations";
import { fieldErrors, type FieldError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { decryptJson, encryptJson } from "../../lib/secrets";
import { providerFor } from "../../providers/registry";
import type { Channel } from "../../engine/steps";
import type { IntegrationConfig } from "../../providers/types";
import { credentialIssues, maskCredentials, unmaskCredentials } from "./credentials";
import type { Integration, IntegrationInput, IntegrationUpdate } from "./schemas";
import { keysetPage } from "../../lib/pagination";

type Row = typeof integrations.$inferSelect;

/** The API view of a row: credentials decrypted only to be masked. */
async function toIntegration(row: Row, encryptionKey: string | undefined): Promise<Integration> {
  const { credentials } = await toConfig(row, encryptionKey);
  return {
    id: row.id,
    provider: row.provider,
    channel: row.channel as Channel,
    name: row.name,
    active: row.active,
    primary: row.primary,
    priority: row.priority,
    credentials: maskCredentials(credentials) as Record<string, unknown>,
    settings: row.settings,
    baseUrl: row.baseUrl,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export type IntegrationUpdateOutcome =
  | { status: "updated"; integration: Integration }
  | { status: "not_found" }
  | { status: "invalid"; errors: FieldError[] };

/** Integrations of one environment for the API: the environment is fixed once, so no query can forget it. */
export function integrationsRepository(db: Db, environmentId: string, encryptionKey: string | undefined) {
  const byId = (id: string) => and(eq(integrations.environmentId, environmentId), eq(integrations.id, id));
  /** Only one primary per channel: clears it on the channel's others, in the same batch as the write that sets it. */
  const clearPrimary = (channel: string, exceptId: string, now: Date) =>
    db
      .update(integrations)
      .set({ primary: false, updatedAt: now })
      .where(
        and(
          eq(integrations.environmentId, environmentId),
          eq(integrations.channel, channel),
          eq(integrations.primary, true),
          ne(integrations.id, exceptId),
        ),
      );

  async function findRow(id: string): Promise<Row | undefined> {
    const [row] = await db.select().from(integrations).where(byId(id)).limit(1);
    return row;
  }

  return {
    async find(id: string): Promise<Integration | null> {
      const row = await findRow(id);
      return row ? toIntegration(row, encryptionKey) : null;
    },

    /** The integration as an adapter sees it (credentials in clear), for the check. */
    async config(id: string): Promise<IntegrationConfig | null> {
      const row = await findRow(id);
      return row ? toConfig(row, encryptionKey) : null;
    },

    /** Pages by id, which is time-ordered: oldest first. */
    async list(limit: number, after?: string, channel?: Channel): Promise<{ data: Integration[]; nextCursor: string | null }> {
      const rows = await db
        .select()
        .from(integrations)
        .where(
          and(
            eq(integrations.environmentId, environmentId),
            channel ? eq(integrations.channel, channel) : undefined,
            after ? gt(integrations.id, after) : undefined,
          ),
        )
        .orderBy(asc(integrations.id))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => last.id);
      return { data: await Promise.all(page.rows.map((row) => toIntegration(row, encryptionKey))), nextCursor: page.nextCursor };
    },

    /** `input` is validated (provider known, credentials of its form); `channel` is the provider's. */
    async create(input: IntegrationInput, channel: Channel, now = new Date()): Promise<Integration> {
      const id = newId("int");
      const insert = db
        .insert(integrations)
        .values({
          id,
          environmentId,
          provider: input.provider,
          channel,
          name: input.name ?? input.provider,
          active: input.active,
          primary: input.primary,
          priority: input.priority,
          credentials: await encryptJson(encryptionKey, input.credentials),
          settings: input.settings,
          baseUrl: input.baseUrl ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      const rows = input.primary ? (await db.batch([clearPrimary(channel, id, now), insert]))[1] : await insert;
      return toIntegration(rows[0]!, encryptionKey);
    },

    async update(id: string, input: IntegrationUpdate, now = new Date()): Promise<IntegrationUpdateOutcome> {
      const row = await findRow(id);
      if (!row) return { status: "not_found" };
      const newHost = input.baseUrl !== undefined && input.baseUrl !== null && input.baseUrl !== row.baseUrl;
      let credentials: string | undefined;
      if (input.credentials !== undefined) {
        const stored = await decryptJson<Record<string, unknown>>(encryptionKey, row.credentials);
        const { credentials: clear, keptStored } = unmaskCredentials(input.credentials, stored);
        const adapter = providerFor(row.provider);
        if (!adapter)
          return {
            status: "invalid",
            errors: [{ path: "credentials", message: `The provider "${row.provider}" is no longer available.` }],
          };
        const errors = fieldErrors(credentialIssues(adapter, clear));
        // Stored secrets never follow a new baseUrl unless the caller shows it has them.
        if (newHost && keptStored)
          errors.push({ path: "credentials", message: "A new baseUrl needs the credentials in full, not masked." });
        if (errors.length) return { status: "invalid", errors };
        credentials = await encryptJson(encryptionKey, clear);
      } else if (newHost) {
        return { status: "invalid", errors: [{ path: "credentials", message: "A new baseUrl needs the credentials in full." }] };
      }
      const update = db
        .update(integrations)
        .set({
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.active !== undefined ? { active: input.active } : {}),
          ...(input.primary !== undefined ? { primary: input.primary } : {}),
          ...(input.priority !== undefined ? { priority: input.priority } : {}),
          ...(input.settings !== undefined ? { settings: input.settings } : {}),
          ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
          ...(credentials !== undefined ? { credentials } : {}),
          updatedAt: now,
        })
        .where(byId(id))
        .returning();
      const rows = input.primary ? (await db.batch([clearPrimary(row.channel, id, now), update]))[1] : await update;
      const [updated] = rows;
      return updated ? { status: "updated", integration: await toIntegration(updated, encryptionKey) } : { status: "not_found" };
    },

    async remove(id: string): Promise<boolean> {
      const rows = await db.delete(integrations).where(byId(id)).returning({ id: integrations.id });
      return rows.length > 0;
    },
  };
}
