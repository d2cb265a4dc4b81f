import type { AuditEntry } from "../../src/features/audit/schemas";
import { SELF } from "cloudflare:test";
import { api } from "../request";

export interface AuditPage {
  data: AuditEntry[];
  nextCursor: string | null;
}

/** The environment's audit log as its key reads it; `query` as in the URL. */
export const auditLog = (key: string, query = "") => api<AuditPage>(key, "GET", `/v1/audit-log${query ? `?${query}` : ""}`);

/** An NDJSON export as text (decoded by hand: the runtime warns on `.text()` of a type it does not know as text). */
export async function ndjson(key: string, path: string, headers: Record<string, string> = {}) {
  const res = await SELF.fetch(`http://clarion.test${path}`, { headers: { authorization: `ApiKey ${key}`, ...headers } });
  return new TextDecoder().decode(await res.arrayBuffer());
}
