import type { Context } from "hono";
import type { AuditContext } from "../../db/queries/audit";
import type { AppEnv } from "../../env";

/** Who makes this request's changes, as the audit log records them. */
export const auditContextOf = (c: Context<AppEnv>): AuditContext => ({
  actor: c.var.actor,
  requestId: c.var.requestId ?? null,
  clientRequestId: c.var.clientRequestId ?? null,
});
