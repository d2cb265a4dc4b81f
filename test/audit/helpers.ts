import type { AuditEntry } from "../../src/features/audit/schemas";
import { api } from "../request";

export interface AuditPage {
  data: AuditEntry[];
  nextCursor: string | null;
}

/** The environment's audit log as its key reads it; `query` as in the URL. */
export const auditLog = (key: string, query = "") => api<AuditPage>(key, "GET", `/v1/audit-log${query ? `?${query}` : ""}`);
