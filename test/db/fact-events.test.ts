import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runBatch, type Statement } from "../../src/db/batch";
import { createDb } from "../../src/db/client";
import {
  type MessageDescription,
  type MessageFact,
  messageFactEvents,
  suppressionFactEvents,
  triggerFactEvents,
  writtenEvents,
} from "../../src/db/queries/fact-events";
import { suppressionRow, suppressionRows } from "../../src/db/queries/suppressions";
import { events, messages, triggers } from "../../src/db/schema";
import { EVENT_TYPES } from "../../src/contract/event-types";
import { subscriberPartition } from "../../src/durable-objects/client/log-naming";
import { newLogId } from "../../src/lib/ids";
import { createEnvironment, unique } from "../factories";
import { api } from "../request";
import * as drizzleBuilt from "./drizzle-fact-events";
import { recorded, recordingDb } from "./recorded";
import { storedRows } from "./stored";

const db = createDb(env.DB);
const at = (i: number) => new Date(1_700_000_000_123 + i * 1_001);

/** SQL text as SQLite reads it: without comments, whitespace collapsed. */
const normalised = (text: string) =>
  text
    .replace(/--[^\n]*/g, "")
    .replace(/\s+/g, " ")
    .trim();

const messageFacts = (environmentId: string): MessageFact[] => [
  { type: "message.sent", environmentId, messageId: "msg_1", at: at(0), status: "sent", reason: null },
  { type: "message.failed", environmentId, messageId: "msg_2", at: at(1), status: "failed", reason: 'it\'s "bad"' },
];
const keys = [
  { environmentId: "env_x", transactionId: "tx_1" },
  { environmentId: "env_y", transactionId: "tx_2", counts: { sent: 2, failed: 1 } },
];
/** msg_2 as the log describes it; msg_1 has no description (a message recorded in D1 before the log left it). */
const described = new Map<string, MessageDescription>([
  ["msg_2", { transactionId: "tx_1", workflowKey: "w", subscriberId: "s", stepId: "mail", channel: "email", provider: null }],
]);

describe("the outbound-event statements bound by hand", () => {
  it("are the SQL drizzle built, with the same parameters", () => {
    const pairs = [
      [messageFactEvents(recordingDb, messageFacts("env_x")), drizzleBuilt.messageFactEvents(db, messageFacts("env_x"))],
      [
        messageFactEvents(recordingDb, messageFacts("env_x"), described),
        drizzleBuilt.messageFactEvents(db, messageFacts("env_x"), described),
      ],
      [
        suppressionFactEvents(recordingDb, [{ environmentId: "env_x", address: "a@example.com", at: at(0) }]),
        drizzleBuilt.suppressionFactEvents(db, [{ environmentId: "env_x", address: "a@example.com", at: at(0) }]),
      ],
      [triggerFactEvents(recordingDb, "trigger.completed", keys), drizzleBuilt.triggerFactEvents(db, "trigger.completed", keys)],
      [triggerFactEvents(recordingDb, "trigger.cancelled", keys), drizzleBuilt.triggerFactEvents(db, "trigger.cancelled", keys)],
    ] as const;
    for (const [byHand, byDrizzle] of pairs) {
      const built = byDrizzle.toSQL();
      expect(normalised(recorded(byHand).sql)).toBe(normalised(built.sql));
      expect(recorded(byHand).params).toEqual(built.params);
    }
  });

  it("write the events drizzle's wrote, and writtenEvents reads the same rows from their results", async () => {
    const { id: environmentId, key } = await createEnvironment();
    await api(key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/hooks" });
    const other = await createEnvironment();
    const now = at(0);
    const message = (
      id: string,
      transactionId: string,
      status: "sent" | "failed",
      provider: string | null,
      inEnvironment = environmentId,
    ) => ({
      id,
      environmentId: inEnvironment,
      transactionId,
      subscriberId: "s",
      workflowKey: "w",
      stepId: `step-${id}`,
      channel: "email",
      status,
      provider,
      attempts: 1,
      createdAt: now,
      updatedAt: now,
    });
    const trigger = (transactionId: string, status: "completed" | "cancelled" | "processing", cancelledMessages: number | null) => ({
      environmentId,
      transactionId,
      workflowKey: "w",
      status,
      recipients: ["s"],
      payload: {},
      acceptedAt: now,
      cancelledMessages,
      createdAt: now,
      updatedAt: at(2),
    });
    const [completed, cancelled, running] = [unique("txc"), unique("txx"), unique("txr")];
    const [sent, failed, elsewhere] = [unique("msg"), unique("msg"), unique("msg")];
    await db
      .insert(messages)
      .values([
        message(sent, completed, "sent", "resend"),
        message(failed, completed, "failed", null),
        message(elsewhere, completed, "sent", "resend", other.id),
      ]);
    await db
      .insert(triggers)
      .values([trigger(completed, "completed", null), trigger(cancelled, "cancelled", 3), trigger(running, "processing", null)]);
    const slack = `https://hooks.slack.com/services/T/B/${unique("secret")}`;
    const suppressed = (channel: string, address: string) => ({
      environmentId,
      channel,
      address,
      reason: "invalid_recipient" as const,
      at: now,
    });
    await runBatch(db, [
      ...suppressionRows.statements(env.DB, [
        suppressionRow(suppressed("email", "bounced@example.com")),
        suppressionRow(suppressed("chat", slack)),
      ]),
    ]);

    const facts: MessageFact[] = [
      { type: "message.sent", environmentId, messageId: sent, at: at(3), status: "sent", reason: null },
      { type: "message.failed", environmentId, messageId: failed, at: at(4), status: "failed", reason: 'it\'s "bad"' },
      // The same fact twice in a batch: one event.
      { type: "message.failed", environmentId, messageId: failed, at: at(4), status: "failed", reason: 'it\'s "bad"' },
      // Not this environment's message: none.
      { type: "message.sent", environmentId, messageId: elsewhere, at: at(3), status: "sent", reason: null },
    ];
    const suppressions = [
      { environmentId, address: "bounced@example.com", at: now },
      { environmentId, address: slack, at: now },
    ];
    const ofTriggers = (...ids: string[]) => ids.map((transactionId) => ({ environmentId, transactionId }));
    const statements = (built: typeof drizzleBuilt | "byHand"): Statement[] => {
      const use = built === "byHand" ? { messageFactEvents, suppressionFactEvents, triggerFactEvents } : built;
      return [
        use.messageFactEvents(db, facts),
        // Something else between them: the events' statements are read at their indexes.
        db.select({ id: messages.id }).from(messages).where(eq(messages.id, sent)),
        use.suppressionFactEvents(db, suppressions),
        use.triggerFactEvents(db, "trigger.completed", ofTriggers(completed, cancelled, running)),
        use.triggerFactEvents(db, "trigger.cancelled", ofTriggers(cancelled, completed)),
        use.triggerFactEvents(db, "trigger.completed", ofTriggers(running)),
      ];
    };
    const stored = async () =>
      (await storedRows(events, "environment_id", [environmentId])).sort((a, b) => String(a.id).localeCompare(String(b.id)));
    const indexes = [0, 2, 3, 4, 5];

    const byDrizzle = drizzleBuilt.writtenEvents(await runBatch(db, statements(drizzleBuilt)), indexes);
    const storedByDrizzle = await stored();
    await db.delete(events).where(eq(events.environmentId, environmentId));
    const results = await runBatch(db, statements("byHand"));
    const byHand = writtenEvents(results, indexes);

    expect(byDrizzle).toHaveLength(6);
    expect(byHand).toEqual(byDrizzle);
    expect(await stored()).toEqual(storedByDrizzle);
    // One statement's events alone, and one that wrote none.
    expect(writtenEvents(results, [4])).toEqual([byDrizzle[5]]);
    expect(writtenEvents(results, [5])).toEqual([]);
  });
  it("describe a log message by the write's answer with a stable id, and a legacy one by its D1 row", async () => {
    const { id: environmentId, key } = await createEnvironment();
    await api(key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/hooks" });
    const legacy = unique("msg");
    await db.insert(messages).values({
      id: legacy,
      environmentId,
      transactionId: "tx_old",
      subscriberId: "old",
      workflowKey: "w_old",
      stepId: "sms",
      channel: "sms",
      status: "sent",
      provider: "twilio",
      attempts: 1,
      createdAt: at(0),
      updatedAt: at(0),
    });
    const logged = newLogId("msg", subscriberPartition(environmentId, "s"));
    const unknown = newLogId("msg", subscriberPartition(environmentId, "t"));
    const about = new Map<string, MessageDescription>([
      [logged, { transactionId: "tx_new", workflowKey: "w", subscriberId: "s", stepId: "mail", channel: "email", provider: "resend" }],
    ]);
    const facts: MessageFact[] = [
      { type: "message.sent", environmentId, messageId: logged, at: at(1), status: "sent", reason: null },
      { type: "message.sent", environmentId, messageId: legacy, at: at(2), status: "sent", reason: null },
      // Neither in the write's answer nor in D1: nothing to describe, no event.
      { type: "message.failed", environmentId, messageId: unknown, at: at(3), status: "failed", reason: "x" },
    ];
    const first = writtenEvents(await runBatch(db, [messageFactEvents(db, facts, about)]), [0]);
    // Written again (a retried phase): the same ids, nothing added.
    const again = writtenEvents(await runBatch(db, [messageFactEvents(db, facts, about)]), [0]);
    expect(again).toEqual([]);
    const rows = await db.select().from(events).where(eq(events.environmentId, environmentId));
    expect(rows.map((r) => r.id).sort()).toEqual(first.map((e) => e.id).sort());
    const byMessage = new Map(rows.map((r) => [(r.data as { messageId: string }).messageId, r]));
    expect(rows).toHaveLength(2);
    expect(byMessage.get(logged)).toMatchObject({
      // The fact's time, the log id's last 16 hex digits, the type's index: the same for the same fact.
      id: `evt_${at(1).getTime().toString(16).padStart(12, "0")}${logged.slice(-16)}${EVENT_TYPES.indexOf("message.sent").toString(16).padStart(4, "0")}`,
      type: "message.sent",
      data: {
        messageId: logged,
        transactionId: "tx_new",
        workflow: "w",
        subscriberId: "s",
        stepId: "mail",
        channel: "email",
        provider: "resend",
        status: "sent",
        reason: null,
      },
    });
    expect(byMessage.get(legacy)).toMatchObject({
      id: expect.stringMatching(/^evt_[0-9a-f]{32}$/),
      type: "message.sent",
      data: {
        messageId: legacy,
        transactionId: "tx_old",
        workflow: "w_old",
        subscriberId: "old",
        stepId: "sms",
        channel: "sms",
        provider: "twilio",
        status: "sent",
        reason: null,
      },
    });
  });
});
