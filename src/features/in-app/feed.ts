import type { InAppChange, InAppFilter, InAppRow } from "../../db/queries/in-app";
import type { FeedView } from "../../durable-objects/client/inbox-feed";
import type { Data } from "../data";
import type { Bindings } from "../../env";
import type { InboxSockets } from "../../durable-objects/inbox-socket/client";
import type { IncomingStatus } from "../messages/status-repository";
import type { InAppNotification } from "./schemas";
import { withoutUnsafeUrls } from "../../engine/in-app-urls";

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toNotification(row: InAppRow): InAppNotification {
  // Also for notifications stored before sends left such URLs out.
  const c = withoutUnsafeUrls(row.content).content;
  return {
    id: row.id,
    subscriberId: row.subscriberId,
    transactionId: row.transactionId,
    workflow: row.workflowKey,
    stepId: row.stepId,
    subject: c.subject ?? null,
    body: c.body,
    avatar: c.avatar ?? null,
    primaryAction: c.primaryAction ?? null,
    secondaryAction: c.secondaryAction ?? null,
    redirect: c.redirect ?? null,
    data: c.data ?? null,
    tags: row.tags,
    seen: row.seenAt !== null,
    read: row.readAt !== null,
    archived: row.archivedAt !== null,
    seenAt: iso(row.seenAt),
    readAt: iso(row.readAt),
    archivedAt: iso(row.archivedAt),
    createdAt: row.createdAt.toISOString(),
    tenant: row.tenantId ?? null,
  };
}

/** The query-string form of the filters (`tags=a,b`, `workflow=`) as the feed reads them. */
export const filterOf = (q: { read?: boolean; seen?: boolean; archived?: boolean; tags?: string; workflow?: string }): InAppFilter => ({
  read: q.read,
  seen: q.seen,
  archived: q.archived,
  tags: q.tags
    ?.split(",")
    .map((t) => t.trim())
    .filter(Boolean),
  workflowKey: q.workflow,
});

/** What a change adds to each message's timeline: only the moments it set, not the ones it cleared. */
const trackingOf = (change: InAppChange, at: Date): IncomingStatus[] => [
  ...(change.seen === true || change.read === true ? [{ status: "seen" as const, at }] : []),
  ...(change.read === true ? [{ status: "read" as const, at }] : []),
  ...(change.archived === true ? [{ status: "archived" as const, at }] : []),
];

/**
 * Changes to one subscriber's Inbox, from the API or the browser alike: the notification rows
 * and the messages' tracking events move together, and every change that touched a notification
 * pushes the new counts to the subscriber's open sockets.
 */
export function inboxService(data: Data, subscriberId: string, sockets: InboxSockets, env: Bindings, view?: FeedView) {
  const { environmentId } = data;
  const feed = data.inAppFeed(subscriberId, view);
  const track = async (ids: string[], change: InAppChange, now: Date) => {
    const reports = trackingOf(change, now);
    if (reports.length === 0 || ids.length === 0) return;
    await data.applyStatuses(
      ids.flatMap((messageId) => reports.map((report) => ({ messageId, report }))),
      env,
    );
  };
  return {
    feed,
    async change(id: string, change: InAppChange, now = new Date()): Promise<InAppRow | null> {
      const row = await feed.update(id, change, now);
      if (row) {
        await track([row.id], change, now);
        await sockets.changed(environmentId, subscriberId, view?.context);
      }
      return row;
    },
    async changeAll(change: InAppChange, filter: InAppFilter, now = new Date()): Promise<string[]> {
      // With one flag, only the notifications it changes are touched (and tracked), not every match.
      const given = (["read", "seen", "archived"] as const).filter((k) => change[k] !== undefined);
      const only = given.length === 1 ? given[0]! : undefined;
      const narrowed = only && filter[only] === undefined ? { ...filter, [only]: !change[only] } : filter;
      const ids = await feed.updateAll(change, narrowed, now);
      await track(ids, change, now);
      if (ids.length > 0) await sockets.changed(environmentId, subscriberId, view?.context);
      return ids;
    },
    /** Deletes from the Inbox only: the messages and their timelines stay. Returns the ids deleted. */
    async remove(ids: string[]): Promise<string[]> {
      const removed = await feed.remove(ids);
      if (removed.length > 0) await sockets.changed(environmentId, subscriberId, view?.context);
      return removed;
    },
    async removeAll(filter: InAppFilter): Promise<string[]> {
      const removed = await feed.removeAll(filter);
      if (removed.length > 0) await sockets.changed(environmentId, subscriberId, view?.context);
      return removed;
    },
  };
}
