import type { AuditAction, AuditResource, WorkflowDefinition } from "../../db/schema";
import { summarise, versionChanges } from "../workflows/versions/changes";
import { jsonPatch } from "../workflows/versions/json-patch";

const SUMMARY_LENGTH = 200;

type JsonObject = Record<string, unknown>;
const isObject = (value: unknown): value is JsonObject => typeof value === "object" && value !== null && !Array.isArray(value);
const isDefinition = (value: unknown): value is WorkflowDefinition => isObject(value) && Array.isArray(value.steps);

/** Actions a workflow's summary already says ("Activated"), or that say nothing more than "changed". */
const PLAIN: ReadonlySet<AuditAction> = new Set(["updated", "activated", "deactivated"]);

const cut = (line: string) => (line.length > SUMMARY_LENGTH ? `${line.slice(0, SUMMARY_LENGTH - 1)}…` : line);
const capitalised = (action: AuditAction) => `${action[0]!.toUpperCase()}${action.slice(1)}`;

/** `/credentials/apiKey` → `credentials.apiKey`; list items are named by their list (`events`, not `events.2`). */
const fieldOf = (pointer: string) =>
  pointer
    .slice(1)
    .split("/")
    .filter((part) => !/^\d+$/.test(part))
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .join(".");

/** "welcome" created, "digest" updated; 2 unchanged: what a promotion did, from its entry's `after`. */
function promotionLine(after: JsonObject): string | null {
  if (typeof after.from !== "string" || typeof after.to !== "string" || !Array.isArray(after.workflows)) return null;
  const done: string[] = [];
  let unchanged = 0;
  for (const workflow of after.workflows) {
    if (!isObject(workflow)) continue;
    if (workflow.outcome === "unchanged") unchanged++;
    else done.push(`"${String(workflow.key)}" ${String(workflow.outcome)}`);
  }
  const what = [done.join(", ") || "no workflow changed", ...(unchanged > 0 ? [`${unchanged} unchanged`] : [])].join("; ");
  return `From ${after.from} to ${after.to}: ${what}`;
}

/**
 * The one line a row of the audit log shows, as a workflow's History shows for its versions:
 * what changed ("step "mail": template.subject changed"), or what happened ("Created").
 * Read from the entry's before and after, so entries written before it existed have one too;
 * it names fields, never values, so it says nothing the masked before and after do not.
 */
export function auditSummary(entry: {
  resource: AuditResource;
  resourceId: string;
  action: AuditAction;
  before: unknown;
  after: unknown;
}): string {
  const { resource, action, before, after } = entry;
  if (resource === "promotion" && isObject(after)) {
    const line = promotionLine(after);
    if (line) return cut(line);
  }
  if (resource === "mcp_tool" && isObject(after)) {
    return cut(`Called ${entry.resourceId}${typeof after.errorCode === "string" ? ` (${after.errorCode})` : ""}`);
  }
  if (before === null || before === undefined) return capitalised(action);
  if (after === null || after === undefined) return action === "updated" ? "Deleted" : capitalised(action);
  if (resource === "workflow" && isDefinition(before) && isDefinition(after)) {
    const line = summarise(versionChanges(before, after), after);
    return cut(PLAIN.has(action) ? line : `${capitalised(action)}: ${line}`);
  }
  const fields = [...new Set(jsonPatch(before, after).map((op) => fieldOf(op.path)))].filter(Boolean);
  if (fields.length === 0) return action === "updated" ? "No changes" : capitalised(action);
  const changed = `${fields.join(", ")} changed`;
  return cut(action === "updated" ? changed : `${capitalised(action)}: ${changed}`);
}
