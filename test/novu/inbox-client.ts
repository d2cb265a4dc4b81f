// A browser's Inbox as `@novu/js` drives it, for the Workers tests of /novu/v1/inbox.
import { env, SELF } from "cloudflare:test";
import { createDb } from "../../src/db/client";
import { insertNotifications } from "../../src/db/queries/in-app";
import type { InAppContent } from "../../src/contract/in-app-content";
import type { InAppSettings } from "../../src/features/in-app/schemas";
import { subscriberHash } from "../../src/features/in-app/settings-repository";
import { newId, newLogId } from "../../src/lib/ids";
import { type FeedRow, LogStore } from "../../src/durable-objects/client/log-store";
import { subscriberPartition } from "../../src/durable-objects/client/log-naming";
import { api, type ApiResponse } from "../request";

export const settingsOf = async (key: string) => (await api<InAppSettings>(key, "GET", "/v1/in-app/settings")).body;

/** The headers `@novu/js` 3.19.2 sends with every call. */
export const NOVU_JS_HEADERS = { "novu-api-version": "2024-06-26", "novu-client-version": "@novu/js@3.19.2" };

export async function inbox<T = Record<string, unknown>>(
  token: string | null,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<ApiResponse<T>> {
  const res = await SELF.fetch(`http://clarion.test/novu/v1/inbox${path}`, {
    method,
    headers: {
      ...NOVU_JS_HEADERS,
      "content-type": "application/json",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as T };
}

export interface Session {
  token: string;
  totalUnreadCount: number;
  unreadCount: { total: number; severity: Record<string, number> };
  applicationIdentifier: string;
}

/** A session for `subscriberId` with the right hash; `profile` is sent as `@novu/js` sends `subscriber`. */
export async function startSession(key: string, subscriberId: string, profile: Record<string, unknown> = {}): Promise<Session> {
  const settings = await settingsOf(key);
  const res = await inbox<{ data: Session }>(null, "POST", "/session", {
    applicationIdentifier: settings.applicationIdentifier,
    subscriberHash: await subscriberHash(settings.hmacSecret, subscriberId),
    subscriber: { subscriberId, ...profile },
  });
  if (res.status !== 201) throw new Error(`session refused: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data;
}

/** Stores in-app notifications as the in_app step does, in the subscriber's log shard (newest last); returns their ids. */
export async function storeNotifications(
  environmentId: string,
  subscriberId: string,
  items: { workflowKey?: string; tags?: string[]; content?: Partial<InAppContent> }[],
): Promise<string[]> {
  const partition = subscriberPartition(environmentId, subscriberId);
  const rows = items.map((item, i): FeedRow => {
    const now = Date.now() + i;
    return {
      id: newLogId("msg", partition),
      environmentId,
      subscriberId,
      transactionId: newId("msg"),
      workflowKey: item.workflowKey ?? "orders",
      stepId: "bell",
      content: { body: `Notification ${i}`, ...item.content },
      tags: item.tags ?? [],
      seenAt: null,
      readAt: null,
      archivedAt: null,
      snoozedUntil: null,
      completedAction: null,
      createdAt: now,
      updatedAt: now,
    };
  });
  await new LogStore(env).feedInsert(rows);
  return rows.map((r) => r.id);
}

/** Stores in-app notifications in D1, as releases before the feed left it did (newest last); returns their ids. */
export async function storeLegacyNotifications(
  environmentId: string,
  subscriberId: string,
  items: { workflowKey?: string; tags?: string[]; content?: Partial<InAppContent> }[],
): Promise<string[]> {
  const db = createDb(env.DB);
  const rows = items.map((item, i) => {
    const now = new Date(Date.now() + i);
    return {
      id: newId("msg"),
      environmentId,
      subscriberId,
      transactionId: newId("msg"),
      workflowKey: item.workflowKey ?? "orders",
      stepId: "bell",
      content: { body: `Notification ${i}`, ...item.content },
      tags: item.tags ?? [],
      createdAt: now,
      updatedAt: now,
    };
  });
  await db.batch(insertNotifications(db, rows) as [ReturnType<typeof insertNotifications>[number]]);
  return rows.map((r) => r.id);
}
