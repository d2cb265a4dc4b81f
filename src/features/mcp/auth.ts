import type { Context } from "hono";
import { MCP_SCOPES, type McpScope } from "../../contract/api-keys";
import type { AuditContext } from "../../db/queries/audit";
import type { Actor, AppEnv } from "../../env";
import { ApiError } from "../../lib/errors";
import { limitRequest } from "../../lib/middleware/rate-limit";
import { type Data, dataOf } from "../data";
import { credentialOf, identify, refuse } from "../environments/auth";

/** Who is calling the MCP server, and what they may do. */
export interface McpCaller {
  data: Data;
  /** The environment's slug: where `promote` promotes from. */
  slug: string;
  /** `mcp:<key name>` in the audit log and on every version or proposal a tool makes. */
  audit: AuditContext;
  scopes: ReadonlySet<McpScope>;
  /** The admin credential: the one caller whose `promote` is not a dry run. */
  admin: boolean;
}

/**
 * `Authorization: Bearer <key>` only: an MCP client is not the dashboard, so its session cookie
 * counts for nothing here. An environment's API key has every scope; an MCP key, the ones it was
 * given; the admin credential acts in the environment `Clarion-Environment` names, with every scope.
 */
export async function mcpCallerOf(c: Context<AppEnv>): Promise<McpCaller> {
  const key = credentialOf(c.req.header("authorization"));
  if (!key) return refuse(c, new ApiError("unauthorized", "Send an API key or an MCP key in the header `Authorization: Bearer <key>`."));
  const { caller, key: owner } = await identify(c, key);
  const headers = await limitRequest(c, caller);
  for (const [name, value] of Object.entries(headers)) c.header(name, value);
  const actor: Actor = owner
    ? { type: "key", id: owner.keyId, name: `mcp:${owner.keyName}` }
    : { type: "admin", id: null, name: "mcp:admin" };
  return {
    data: dataOf(c.env, caller.environmentId),
    slug: caller.slug,
    audit: { actor, requestId: c.var.requestId ?? null, clientRequestId: c.var.clientRequestId ?? null },
    scopes: new Set(owner?.kind === "mcp" ? owner.scopes : MCP_SCOPES),
    admin: owner === null,
  };
}
