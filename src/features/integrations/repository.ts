import { and, asc, eq, gt, ne } from "drizzle-orm";
import type { Db } from "../../db/client";
import { integrations } from "../../db/schema";
import { readCredentials, sealCredentials, toConfig } from "../../db/queries/integrations";
import type { DestinationOptions } from "../../lib/destinations";
import { fieldErrors, type FieldError } from "../../lib/errors";
import { newId } from "../../lib/ids";
import { isUnboundCiphertext } from "../../lib/secrets";
import { providerFor } from "../../providers/registry";
import type { ProviderChannel } from "../../engine/steps";
import type { IntegrationConfig } from "../../providers/types";
import { credentialIssues, credentialsJsonSchema, credentialsView, MASK, secretPaths, unmaskCredentials } from "./credentials";
import { destinationsOf, movedDestinations, refusedDestinations } from "./destinations";
import type { Integration, IntegrationInput, IntegrationUpdate } from "./schemas";
import { idCursor } from "../../lib/cursor";
import { keysetPage } from "../../lib/pagination";
import { type AuditContext, auditStatement } from "../../db/queries/audit";

type Row = typeof integrations.$inferSelect;

/** The API view of a row: credentials decrypted only to be shown with their secrets masked. */
async function toIntegration(row: Row, encryptionKey: string | undefined): Promise<Integration> {
  const { credentials } = await toConfig(row, encryptionKey);
  return {
    id: row.id,
    provider: row.provider,
    channel: row.channel as ProviderChannel,
    name: row.name,
    active: row.active,
    primary: row.primary,
    priority: row.priority,
    credentials: credentialsView(row.provider, credentials),
    settings: row.settings,
    baseUrl: row.baseUrl,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** What the audit log keeps of an integration: its API view (secrets masked), without the timestamps. */
const audited = ({ createdAt: _c, updatedAt: _u, ...view }: Integration) => view;

export type IntegrationUpdateOutcome =
  | { status: "updated"; integration: Integration }
  | { status: "not_found" }
  | { status: "invalid"; errors: FieldError[] }
  /** A destination moved while stored secrets were kept: `errors` name the secrets to send in full. */
  | { status: "resupply"; moved: string[]; errors: FieldError[] }
  | { status: "destination_not_allowed"; errors: FieldError[] };

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
    async list(limit: number, cursor?: string, channel?: ProviderChannel): Promise<{ data: Integration[]; nextCursor: string | null }> {
      const [after] = idCursor.read(cursor) ?? [];
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
      const page = keysetPage(rows, limit, (last) => idCursor.encode([last.id]));
      return { data: await Promise.all(page.rows.map((row) => toIntegration(row, encryptionKey))), nextCursor: page.nextCursor };
    },

    /** `input` is validated (provider known, credentials of its form); `channel` is the provider's. */
    async create(input: IntegrationInput, channel: ProviderChannel, context: AuditContext, now = new Date()): Promise<Integration> {
      const id = newId("int");
      const values = {
        id,
        environmentId,
        provider: input.provider,
        channel,
        name: input.name ?? input.provider,
        active: input.active,
        primary: input.primary,
        priority: input.priority,
        credentials: await sealCredentials({ environmentId, id }, input.credentials, encryptionKey),
        settings: input.settings,
        baseUrl: input.baseUrl ?? null,
        createdAt: now,
        updatedAt: now,
      };
      const created = await toIntegration(values, encryptionKey);
      const insert = db.insert(integrations).values(values);
      const audit = auditStatement(db, context, {
        environmentId,
        resource: "integration",
        resourceId: id,
        action: "created",
        before: null,
        after: audited(created),
      });
      if (input.primary) await db.batch([clearPrimary(channel, id, now), insert, audit]);
      else await db.batch([insert, audit]);
      return created;
    },

    /**
     * Stored secrets never follow a moved destination (`baseUrl`, or a credential field the adapter
     * names in `destinations`) unless the caller sends them in full: a key holder who only saw
     * the masked form must not be able to send them, or a token signed with them, elsewhere.
     */
    async update(
      id: string,
      input: IntegrationUpdate,
      policy: DestinationOptions,
      context: AuditContext,
      now = new Date(),
    ): Promise<IntegrationUpdateOutcome> {
      const row = await findRow(id);
      if (!row) return { status: "not_found" };
      const adapter = providerFor(row.provider);
      const read = await readCredentials(row, encryptionKey);
      const stored = read.ok ? read.credentials : {};
      let clear: Record<string, unknown> | undefined;
      let kept: string[];
      if (input.credentials !== undefined) {
        if (!adapter)
          return {
            status: "invalid",
            errors: [{ path: "credentials", message: `The provider "${row.provider}" is no longer available.` }],
          };
        if (!read.ok && JSON.stringify(input.credentials).includes(MASK))
          return {
            status: "invalid",
            errors: [{ path: "credentials", message: `The stored credentials cannot be read (${read.reason}): send them in full.` }],
          };
        ({ credentials: clear, kept } = unmaskCredentials(input.credentials, stored));
        const errors = fieldErrors(credentialIssues(adapter, clear));
        if (errors.length) return { status: "invalid", errors };
      } else {
        // Settings shown in clear were never hidden from the caller: only the secrets stay behind unseen.
        kept = secretPaths(stored, adapter ? credentialsJsonSchema(adapter) : undefined);
      }
      if (adapter) {
        const before = destinationsOf(adapter, stored, row.baseUrl);
        const after = destinationsOf(adapter, clear ?? stored, input.baseUrl !== undefined ? input.baseUrl : row.baseUrl);
        const moved = movedDestinations(before, after);
        if (moved.length && kept.length) {
          const message = `Stored secrets do not follow a new ${moved.join(", ")}: send this value in full.`;
          return { status: "resupply", moved, errors: kept.map((path) => ({ path, message })) };
        }
        const refused = refusedDestinations(new Map([...after].filter(([path]) => moved.includes(path))), policy);
        if (refused.length) return { status: "destination_not_allowed", errors: refused };
      }
      // Credentials from before row binding are written again bound to this row.
      const rewrite = clear ?? (read.ok && isUnboundCiphertext(row.credentials) ? stored : undefined);
      const credentials = rewrite !== undefined ? await sealCredentials({ environmentId, id }, rewrite, encryptionKey) : undefined;
      const changes = {
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.active !== undefined ? { active: input.active } : {}),
        ...(input.primary !== undefined ? { primary: input.primary } : {}),
        ...(input.priority !== undefined ? { priority: input.priority } : {}),
        ...(input.settings !== undefined ? { settings: input.settings } : {}),
        ...(input.baseUrl !== undefined ? { baseUrl: input.baseUrl } : {}),
        ...(credentials !== undefined ? { credentials } : {}),
        updatedAt: now,
      };
      const update = db.update(integrations).set(changes).where(byId(id)).returning();
      const audit = auditStatement(db, context, {
        environmentId,
        resource: "integration",
        resourceId: id,
        action: "updated",
        before: audited(await toIntegration(row, encryptionKey)),
        after: audited(await toIntegration({ ...row, ...changes }, encryptionKey)),
      });
      const [updated] = input.primary
        ? (await db.batch([clearPrimary(row.channel, id, now), update, audit]))[1]
        : (await db.batch([update, audit]))[0];
      return updated ? { status: "updated", integration: await toIntegration(updated, encryptionKey) } : { status: "not_found" };
    },

    async remove(id: string, context: AuditContext): Promise<boolean> {
      const row = await findRow(id);
      if (!row) return false;
      const [rows] = await db.batch([
        db.delete(integrations).where(byId(id)).returning({ id: integrations.id }),
        auditStatement(db, context, {
          environmentId,
          resource: "integration",
          resourceId: id,
          action: "deleted",
          before: audited(await toIntegration(row, encryptionKey)),
          after: null,
        }),
      ]);
      return rows.length > 0;
    },
  };
}
