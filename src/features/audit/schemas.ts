import { z } from "@hono/zod-openapi";
import { AUDIT_ACTIONS, AUDIT_RESOURCES } from "../../contract/audit";
import { idCursor } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";

export const AuditActor = z
  .object({
    type: z.enum(["key", "admin", "dashboard"]),
    id: z.string().nullable().openapi({ description: "The API key's id (`key_...`), never the key; null for the admin credential." }),
    name: z.string(),
  })
  .openapi("AuditActor");

export const AuditEntry = z
  .object({
    id: z.string().openapi({ example: "aud_0193c1f2a4b07c3d9e8f00112233aabb" }),
    environment: z.string().openapi({ description: "The environment's slug." }),
    at: z.iso.datetime(),
    actor: AuditActor,
    resource: z.enum(AUDIT_RESOURCES),
    resourceId: z
      .string()
      .openapi({ description: "A workflow's or variable's key, an integration's, key's or endpoint's id, an environment's slug." }),
    action: z.enum(AUDIT_ACTIONS),
    summary: z.string().openapi({
      description:
        'One line saying what changed, as a workflow\'s History does (`step "mail": template.subject changed`, `name changed`, `Created`); it names fields, never values.',
      example: 'step "mail": template.subject changed',
    }),
    before: z.unknown().nullable().openapi({ description: "The resource before the change, secrets masked; null when it did not exist." }),
    after: z.unknown().nullable().openapi({ description: "The resource after the change, secrets masked; null once deleted." }),
    requestId: z
      .string()
      .nullable()
      .openapi({ description: "Clarion's id of the request that made the change (its `x-request-id` answer header)." }),
    clientRequestId: z
      .string()
      .nullable()
      .openapi({ description: "The `X-Request-Id` the caller sent, if any: recorded as given, never used as `requestId`." }),
    proposalId: z
      .string()
      .nullable()
      .openapi({ description: "The proposal (`prp_...`) whose apply made this change; null for a direct change." }),
  })
  .openapi("AuditEntry");
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditList = pageOf(AuditEntry).openapi("AuditList");

export const AuditQuery = pageQuery(500, idCursor).extend({
  resource: z.enum(AUDIT_RESOURCES).optional(),
  resourceId: z.string().max(200).optional().openapi({ description: "With `resource`: one workflow's key, one integration's id, ..." }),
  action: z.enum(AUDIT_ACTIONS).optional(),
  actor: z.string().max(200).optional().openapi({ description: "An API key's id (`key_...`), a key's name, or `admin`." }),
  after: z.iso.datetime({ offset: true }).optional().openapi({ description: "Entries at or after this time." }),
  before: z.iso.datetime({ offset: true }).optional().openapi({ description: "Entries before this time." }),
  format: z
    .enum(["json", "ndjson"])
    .optional()
    .openapi({ description: "`ndjson` (or `Accept: application/x-ndjson`) streams every matching entry, one per line, newest first." }),
});
export type AuditQuery = z.infer<typeof AuditQuery>;

export const AdminAuditQuery = AuditQuery.extend({
  environment: z.string().max(64).optional().openapi({ description: "One environment's slug (deleted environments included)." }),
});
export type AdminAuditQuery = z.infer<typeof AdminAuditQuery>;
