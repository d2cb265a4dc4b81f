/**
 * The frames of Novu's Inbox socket as `@novu/js` 3.19.2 reads them with `socketType: 'cloud'`
 * (its partysocket client): one JSON text frame `{event, data}` each. `notification_received`
 * carries the message in the raw shape the client maps (`mapToNotification`): `_id`, `content`,
 * `cta.data` / `cta.action.buttons`, `lastReadDate`, `firstSeenDate`, ... See
 * docs/guides/in-app-inbox.md ("Realtime").
 */
import type { InAppCounts, InAppRow } from "../../db/queries/in-app";
import type { InAppActionContent } from "../../contract/in-app-content";
import { withoutUnsafeUrls } from "../../engine/in-app-urls";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** Clarion has no severities: every notification is Novu's `none`. */
const SEVERITY = "none";

const button = (type: "primary" | "secondary", action: InAppActionContent | undefined) =>
  action ? [{ type, content: action.label, url: action.redirect?.url, target: action.redirect?.target }] : [];

/** An in-app notification in the raw shape of Novu's Inbox API (what `@novu/js` maps to its `Notification`). */
export function novuInboxMessage(row: InAppRow) {
  // Also for notifications stored before sends left such URLs out.
  const c = withoutUnsafeUrls(row.content).content;
  return {
    _id: row.id,
    transactionId: row.transactionId,
    subject: c.subject,
    content: c.body,
    avatar: c.avatar,
    read: row.readAt !== null,
    seen: row.seenAt !== null,
    archived: row.archivedAt !== null,
    snoozedUntil: iso(row.snoozedUntil),
    deliveredAt: [row.createdAt.toISOString()],
    createdAt: row.createdAt.toISOString(),
    lastReadDate: iso(row.readAt),
    firstSeenDate: iso(row.seenAt),
    archivedAt: iso(row.archivedAt),
    channel: "in_app",
    subscriber: { _id: row.subscriberId, subscriberId: row.subscriberId },
    cta: {
      type: "redirect",
      data: c.redirect ? { url: c.redirect.url, target: c.redirect.target } : {},
      action: {
        status: row.completedAction ? "done" : "pending",
        buttons: [...button("primary", c.primaryAction), ...button("secondary", c.secondaryAction)],
        result: { type: row.completedAction ?? null, payload: {} },
      },
    },
    tags: row.tags,
    data: c.data ?? {},
    workflow: {
      id: row.workflowKey,
      identifier: row.workflowKey,
      name: row.workflowKey,
      critical: false,
      tags: row.tags,
      severity: SEVERITY,
    },
    severity: SEVERITY,
  };
}

export type NovuInboxMessage = ReturnType<typeof novuInboxMessage>;

const frame = (event: string, data: unknown) => JSON.stringify({ event, data });

export const receivedFrame = (row: InAppRow) => frame("notification_received", { message: novuInboxMessage(row) });

/** Both badges, exact: Novu's unread count leaves archived notifications out, as Clarion's does. */
export const countFrames = (counts: InAppCounts) => [
  frame("unseen_count_changed", { unseenCount: counts.unseen }),
  frame("unread_count_changed", { counts: { total: counts.unread, severity: { high: 0, medium: 0, low: 0, none: counts.unread } } }),
];
