import { env } from "cloudflare:test";
import { newId } from "../src/lib/ids";
import {
  type FeedRow,
  type LogCapture,
  type LogEvent,
  type LogMessage,
  LogStore,
  type LogTrigger,
  type MessageFilter,
  type TriggerFilter,
} from "../src/durable-objects/client/log-store";

/**
 * The log shards' binding with each shard's methods seen first: `intercept` answers a stand-in for
 * the method (it may call the real one on `stub`), or undefined to let the real one through. What
 * tests use to count or refuse the calls delivery makes to the shards.
 */
export function interceptedLogs(intercept: (key: string | symbol, stub: ReturnType<typeof env.LOGS.get>) => unknown): typeof env.LOGS {
  const logs = env.LOGS;
  return {
    idFromName: (name: string) => logs.idFromName(name),
    get: (id: DurableObjectId) =>
      new Proxy(logs.get(id), {
        get: (stub, key) => intercept(key, stub) ?? Reflect.get(stub, key),
      }),
  } as unknown as typeof env.LOGS;
}

/**
 * Every message of an environment in the log, newest first (all pages), optionally filtered as
 * `GET /v1/messages` filters: what tests read where they once read D1's `messages`.
 */
export async function loggedMessages(
  environmentId: string,
  filter: Omit<Partial<MessageFilter>, "environmentId"> = {},
): Promise<LogMessage[]> {
  const store = new LogStore(env);
  const all: LogMessage[] = [];
  let before: [number, string] | undefined;
  for (;;) {
    const page = await store.list({ ...filter, environmentId, limit: 500, ...(before ? { before } : {}) });
    all.push(...page);
    if (page.length < 500) return all;
    const last = page[page.length - 1]!;
    before = [last.createdAt, last.id];
  }
}

/** Messages by id with their timelines, in the order asked. */
export async function loggedTimelines(environmentId: string, ids: string[]): Promise<{ message: LogMessage; events: LogEvent[] }[]> {
  const found = await new LogStore(env).find(environmentId, ids);
  return ids.flatMap((id) => found.filter((f) => f.message.id === id));
}

/** Every timeline entry of an environment's messages. */
export async function loggedEvents(environmentId: string): Promise<LogEvent[]> {
  const messages = await loggedMessages(environmentId);
  const found = await new LogStore(env).find(
    environmentId,
    messages.map((m) => m.id),
  );
  return found.flatMap((f) => f.events);
}

/** Every sandbox capture of an environment in the log, newest first (all pages): what tests once read from D1's `sandbox_messages`. */
export async function loggedCaptureRows(environmentId: string): Promise<LogCapture[]> {
  const store = new LogStore(env);
  const all: LogCapture[] = [];
  let before: [number, string] | undefined;
  for (;;) {
    const page = await store.captures(environmentId, 500, undefined, before);
    all.push(...page);
    if (page.length < 500) return all;
    const last = page[page.length - 1]!;
    before = [last.createdAt, last.id];
  }
}

/**
 * The sandbox's captures of a trigger's messages, each with the message it captured: what tests
 * once read by joining `sandbox_messages` to D1's `messages`.
 */
export async function loggedCaptures(environmentId: string, transactionId: string): Promise<{ captureId: string; message: LogMessage }[]> {
  const messages = new Map((await loggedMessages(environmentId, { transactionId })).map((m) => [m.id, m]));
  return (await loggedCaptureRows(environmentId)).flatMap((c) => {
    const message = messages.get(c.messageId);
    return message ? [{ captureId: c.id, message }] : [];
  });
}

/** A subscriber's in-app notifications in the log, newest first: what tests read where they once read D1's `in_app_notifications`. */
export async function loggedFeed(environmentId: string, subscriberId: string): Promise<FeedRow[]> {
  return new LogStore(env).feedList(environmentId, subscriberId, {}, 10_000);
}

/** A trigger's record in the log (placed by trigger), or null: what tests once read from D1's `triggers`. */
export async function loggedTrigger(environmentId: string, transactionId: string): Promise<LogTrigger | null> {
  const [found] = await new LogStore(env).findTriggers(environmentId, [transactionId]);
  return found ?? null;
}

/** Every trigger record of an environment in the log, newest first (all pages). */
export async function loggedTriggers(
  environmentId: string,
  filter: Omit<Partial<TriggerFilter>, "environmentId"> = {},
): Promise<LogTrigger[]> {
  const store = new LogStore(env);
  const all: LogTrigger[] = [];
  let before: [number, string] | undefined;
  for (;;) {
    const page = await store.listTriggers({ ...filter, environmentId, limit: 500, ...(before ? { before } : {}) });
    all.push(...page);
    if (page.length < 500) return all;
    const last = page[page.length - 1]!;
    before = [last.acceptedAt, last.transactionId];
  }
}

/**
 * A log message as delivery writes a sent email, made at `createdAt`; tests override what they
 * look at (its id, status, content, transactionId...).
 */
export const logMessage = (fields: Pick<LogMessage, "environmentId" | "subscriberId" | "createdAt"> & Partial<LogMessage>): LogMessage => ({
  id: newId("msg"),
  transactionId: `tx-${crypto.randomUUID()}`,
  workflowKey: "wf",
  stepId: "mail",
  channel: "email",
  provider: "sendgrid",
  integrationId: null,
  status: "sent",
  providerMessageId: null,
  to: "a@example.com",
  subject: "S",
  preview: "P",
  content: { html: "<p>x</p>" },
  errorCode: null,
  errorMessage: null,
  attempts: 1,
  updatedAt: fields.createdAt,
  ...fields,
});

/** A timeline entry of `m`, with a new id. */
export const logEvent = (
  m: LogMessage,
  status: LogEvent["status"],
  at: number,
  detail: Record<string, unknown> | null = null,
): LogEvent => ({
  id: newId("evt"),
  environmentId: m.environmentId,
  messageId: m.id,
  status,
  at,
  detail,
});

/** A message's in-app notification as delivery stores it beside the message (same id, subscriber and trigger). */
export const notificationOf = (m: LogMessage, content: FeedRow["content"] = { body: "Hello" }): FeedRow => ({
  id: m.id,
  environmentId: m.environmentId,
  subscriberId: m.subscriberId,
  transactionId: m.transactionId,
  workflowKey: m.workflowKey,
  stepId: m.stepId,
  content,
  tags: [],
  seenAt: null,
  readAt: null,
  archivedAt: null,
  snoozedUntil: null,
  completedAction: null,
  createdAt: m.createdAt,
  updatedAt: m.updatedAt,
});
