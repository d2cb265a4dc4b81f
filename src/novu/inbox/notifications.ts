// Clarion's in-app notification rows in the shape `@novu/js` maps into its `Notification`.
import type { InAppRow } from "../../db/queries/in-app";
import type { InboxNotification, InboxWorkflow } from "./schemas";
import type { InboxWorkflowRow } from "./workflows-repository";
import { withoutUnsafeUrls } from "../../engine/in-app-urls";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export const toInboxWorkflow = (key: string, found: InboxWorkflowRow | undefined, tags: string[]): InboxWorkflow => ({
  id: key,
  identifier: key,
  name: found?.name ?? key,
  critical: found?.critical ?? false,
  tags: found?.tags ?? tags,
  severity: "none",
});

export function toInboxNotification(row: InAppRow, workflow: InboxWorkflowRow | undefined, now: Date): InboxNotification {
  // Also for notifications stored before sends left such URLs out.
  const c = withoutUnsafeUrls(row.content).content;
  const action = (a: typeof c.primaryAction, type: "primary" | "secondary") =>
    a ? { label: a.label, isCompleted: row.completedAction === type, ...(a.redirect ? { redirect: a.redirect } : {}) } : undefined;
  const snoozed = row.snoozedUntil !== null && row.snoozedUntil > now;
  return {
    id: row.id,
    transactionId: row.transactionId,
    ...(c.subject ? { subject: c.subject } : {}),
    body: c.body,
    to: { id: row.subscriberId, subscriberId: row.subscriberId },
    isRead: row.readAt !== null,
    isSeen: row.seenAt !== null,
    isArchived: row.archivedAt !== null,
    isSnoozed: snoozed,
    snoozedUntil: snoozed ? iso(row.snoozedUntil) : null,
    deliveredAt: [row.createdAt.toISOString()],
    createdAt: row.createdAt.toISOString(),
    readAt: iso(row.readAt),
    firstSeenAt: iso(row.seenAt),
    archivedAt: iso(row.archivedAt),
    ...(c.avatar ? { avatar: c.avatar } : {}),
    primaryAction: action(c.primaryAction, "primary"),
    secondaryAction: action(c.secondaryAction, "secondary"),
    channelType: "in_app",
    tags: row.tags,
    ...(c.data ? { data: c.data } : {}),
    ...(c.redirect ? { redirect: c.redirect } : {}),
    workflow: toInboxWorkflow(row.workflowKey, workflow, row.tags),
    severity: "none",
  };
}
