import type { integrations } from "../../db/schema";
import { toConfig } from "../../db/queries/integrations";
import type { ProviderChannel } from "../../engine/steps";
import type { FieldError } from "../../lib/errors";
import { credentialsView } from "./credentials";
import type { Integration } from "./schemas";

export type IntegrationRow = typeof integrations.$inferSelect;
type Row = IntegrationRow;

/** The API view of a row: credentials decrypted only to be shown with their secrets masked. */
export async function toIntegration(row: Row, encryptionKey: string | undefined): Promise<Integration> {
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
    tenantId: row.tenantId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** What the audit log keeps of an integration: its API view (secrets masked), without the timestamps. */
export const audited = ({ createdAt: _c, updatedAt: _u, ...view }: Integration) => view;

export type IntegrationUpdateOutcome =
  | { status: "updated"; integration: Integration }
  | { status: "not_found" }
  | { status: "invalid"; errors: FieldError[] }
  /** A destination moved while stored secrets were kept: `errors` name the secrets to send in full. */
  | { status: "resupply"; moved: string[]; errors: FieldError[] }
  | { status: "destination_not_allowed"; errors: FieldError[] };
