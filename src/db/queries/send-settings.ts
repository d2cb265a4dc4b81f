import { bound } from "../batch";
import type { Db } from "../client";
import { packedRow, unpackedRow } from "../json-rows";
import { integrations, preferenceLinkSettings, variables } from "../schema";
import { type NoEndpoints, noEndpointsNow } from "./fact-events";

/**
 * What delivery reads of an environment before it sends (its variables, its active integrations
 * in failover order, its preference-link settings, whether it has an enabled webhook endpoint)
 * as ONE statement rather than four: each
 * invocation of the delivery consumer reads it once per environment it runs.
 */
const SEND_SETTINGS = `select
  (select json_group_array(json(r)) from (select ${packedRow(variables, "v")} as r from variables as v where v.environment_id = ?)) as variables,
  (select json_group_array(json(r)) from (select ${packedRow(integrations, "i")} as r from integrations as i
    where i.environment_id = ? and i.active = 1 order by i."primary" desc, i.priority asc, i.created_at asc)) as integrations,
  (select ${packedRow(preferenceLinkSettings, "p")} from preference_link_settings as p where p.environment_id = ?) as links,
  exists (select 1 from webhook_endpoints as w where w.environment_id = ? and w.enabled = 1) as endpoints`;

export interface SendSettingsRows {
  variables: (typeof variables.$inferSelect)[];
  /** Active ones only, primary first, then by priority (lowest first), then oldest first: the failover order. */
  integrations: (typeof integrations.$inferSelect)[];
  /** Null until the environment's first link secret is minted. */
  links: typeof preferenceLinkSettings.$inferSelect | null;
  /** Set when the environment had no enabled webhook endpoint as this was read: its message events would insert nothing. */
  noEndpoints: NoEndpoints | null;
}

type Packed = { variables: string; integrations: string; links: string | null; endpoints: number };

export async function sendSettingsRows(db: Db, environmentId: string): Promise<SendSettingsRows> {
  // Taken before the read: a change of this isolate's endpoints during it voids what it found.
  const none = noEndpointsNow();
  const packed = await bound(db.$client, SEND_SETTINGS, [environmentId, environmentId, environmentId, environmentId]).first<Packed>();
  if (!packed) throw new Error("the send settings' read answered no row");
  const list = (text: string) => JSON.parse(text) as unknown[][];
  return {
    variables: list(packed.variables).map((v) => unpackedRow(variables, v)),
    // Sorted again (stably): SQLite keeps a subquery's order through an aggregate, but does not promise it.
    integrations: list(packed.integrations)
      .map((v) => unpackedRow(integrations, v))
      .sort((a, b) => Number(b.primary) - Number(a.primary) || a.priority - b.priority || a.createdAt.getTime() - b.createdAt.getTime()),
    links: packed.links === null ? null : unpackedRow(preferenceLinkSettings, JSON.parse(packed.links) as unknown[]),
    noEndpoints: packed.endpoints === 1 ? null : none,
  };
}
