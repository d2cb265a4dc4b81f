import { createMessageBatch, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BROADCAST_RECIPIENT } from "../../src/contract/recipients";
import { triggerJob } from "../../src/jobs/job";
import type { DigestObject } from "../../src/durable-objects/digest-object";
import type { Bindings } from "../../src/env";
import worker from "../../src/index";
import { createSandboxEnvironment, unique } from "../factories";
import { acceptThenCrash, digestOf, digestWaiting, ledgerOf, readTrigger, tickLedger } from "../ledger";
import { loggedCaptureRows, loggedMessages } from "../log";
import { api } from "../request";
import { withEveryDeliveryQueue } from "../delivery-queues";
import { byStep, createWorkflow, messageDetail, seedTopic, settledMessages, trigger, type MessageView, eventually } from "./helpers";

// The watchdog's defaults (wrangler.toml): a live trigger without progress for this long is resumed.
const STALL_MS = 120_000;

const person = () => ({ subscriberId: unique("w"), email: "w@example.com" });

/** A Queue that loses everything sent to it: the runtime killed before the jobs reached the broker. */
const lost: Queue<unknown> = {
  send: async () => undefined,
  sendBatch: async () => undefined,
} as unknown as Queue<unknown>;
const losingQueues: Bindings = withEveryDeliveryQueue(env, lost);

/** Runs a trigger's job in the consumer as the Queue would, with whatever it enqueues lost. */
const consumeLosingOutput = (environmentId: string, transactionId: string, ledger: string) =>
  worker.queue(
    createMessageBatch("clarion-delivery-0", [
      { id: unique("job"), timestamp: new Date(), attempts: 1, body: { ...triggerJob(environmentId, transactionId), ledger } },
    ]),
    losingQueues,
  );

/** Every message of a trigger's sends with its provider calls: exactly once means one message and one call per recipient. */
const sendsOf = async (environmentId: string, transactionId: string) => {
  const messages = await loggedMessages(environmentId, { transactionId });
  const ids = new Set(messages.map((m) => m.id));
  const captures = await loggedCaptureRows(environmentId);
  return {
    messages: ids.size,
    recipients: new Set(messages.map((m) => m.subscriberId)).size,
    calls: captures.filter((c) => ids.has(c.messageId)).length,
    sent: messages.length ? messages.filter((m) => m.status === "sent").length : null,
  };
};

const messagesOf = async (key: string, transactionId: string) =>
  (await api<{ data: MessageView[] }>(key, "GET", `/v1/messages?transactionId=${transactionId}&limit=200`)).body.data;

describe("the watchdog resumes every unfinished run", () => {
  it("a digest whose post-digest jobs were lost: the digest goes out once, the other trigger is digested", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "lost-digest",
      steps: [
        { id: "collect", type: "digest", window: "PT10M", key: "{{ payload.postId }}" },
        {
          id: "mail",
          type: "email",
          template: { subject: "{{ steps.collect.count }} new", text: "{% for e in steps.collect.events %}{{ e.text }};{% endfor %}" },
        },
      ],
    });
    const subscriber = person();
    const transactionIds = [
      await trigger(key, { workflow: "lost-digest", to: subscriber, payload: { postId: "p", text: "one" } }),
      await trigger(key, { workflow: "lost-digest", to: subscriber, payload: { postId: "p", text: "two" } }),
    ];
    const digest = digestOf(id, "lost-digest", subscriber.subscriberId, "p");
    await eventually(async () => {
      return (await digestWaiting(digest)) === 2;
      // The first real queue round trip after the runtime was reset for this file: once, in a CI
      // run under load, it took longer than the default 15 s to arrive.
    }, 30_000);
    // The window closes, and the runtime dies before the jobs that continue both runs reach the Queue.
    await runInDurableObject(digest, async (instance: DigestObject, state) => {
      await state.storage.deleteAlarm();
      expect(await instance.close(Date.now())).toHaveLength(2);
    });
    const later = Date.now() + 10 * 60_000 + STALL_MS + 1_000;
    // Both triggers may live in one ledger shard (1 in 32): its tick then resumes both, and the other's none.
    const resumed: number[] = [];
    for (const tx of transactionIds) resumed.push((await tickLedger(id, tx, later)).resumed);
    expect(resumed[0]! + resumed[1]!).toBe(2);

    // The trigger that reached the digest first carries it (the Queue may deliver either first);
    // the digest lists both events in the order they came, the carrier's first.
    const messages = await Promise.all(transactionIds.map(async (tx) => (await settledMessages(key, tx, 1))[0]!));
    const carrier = messages.findIndex((m) => m.status === "sent");
    expect(carrier).toBeGreaterThanOrEqual(0);
    const [sent, digested] = [messages[carrier]!, messages[1 - carrier]!];
    expect(sent).toMatchObject({ status: "sent", subject: "2 new" });
    expect((await messageDetail(key, sent.id)).content).toMatchObject({ text: carrier === 0 ? "one;two;" : "two;one;" });
    expect(digested.status).toBe("skipped");
    for (const tx of transactionIds) await eventually(async () => (await readTrigger(id, tx))?.state === "completed");
    expect(await sendsOf(id, transactionIds[carrier]!)).toEqual({ messages: 1, recipients: 1, calls: 1, sent: 1 });
    // Resumed again later, nothing more happens: both are finished.
    for (const tx of transactionIds) expect((await tickLedger(id, tx, later + STALL_MS + 1_000)).resumed).toBe(0);
    // The first real queue round trip of the file can take most of 30 s under CI load (above): the test gets a minute.
  }, 60_000);

  it("a digest still collecting is left waiting, however long the trigger has been quiet", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "open-digest",
      steps: [
        { id: "collect", type: "digest", window: "PT1H" },
        { id: "mail", type: "email", template: { subject: "digest", text: "Hi" } },
      ],
    });
    const recipient = person();
    const subscriberOf = recipient.subscriberId;
    const transactionId = await trigger(key, { workflow: "open-digest", to: recipient });
    await eventually(
      async () => (await readTrigger(id, transactionId))?.state === "accepted" && (await messagesOf(key, transactionId)).length === 0,
    );
    const digestHeld = async () => {
      const names = await runInDurableObject(
        ledgerOf(id, transactionId),
        async (_l, state) =>
          state.storage.sql.exec<{ digests: string | null }>("SELECT digests FROM triggers WHERE tx = ?", transactionId).one().digests,
      );
      return names !== null;
    };
    await eventually(digestHeld);
    // The trigger's hold has run out but the digest's alarm is late: the watchdog asks the digest, which still collects.
    const digest = digestOf(id, "open-digest", subscriberOf, "");
    await runInDurableObject(digest, async (_i: DigestObject, state) => state.storage.deleteAlarm());
    expect((await tickLedger(id, transactionId, Date.now() + 60 * 60_000 + STALL_MS + 1_000)).resumed).toBe(0);
    expect(await messagesOf(key, transactionId)).toEqual([]);
  });

  it("a throttled run whose job was lost runs once, with the throttle's first answer", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "lost-throttle",
      steps: [
        { id: "limit", type: "throttle", window: "PT1H", limit: 1 },
        { id: "mail", type: "email", template: { subject: "alert", text: "Hi" } },
      ],
    });
    const subscriber = person();
    await api(key, "POST", "/sub", subscriber);
    const { transactionId } = await acceptThenCrash(id, "lost-throttle", subscriber.subscriberId, { loseJob: true });
    expect((await tickLedger(id, transactionId, Date.now() + STALL_MS + 1_000)).resumed).toBe(1);
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message!.status).toBe("sent");
    expect(await sendsOf(id, transactionId)).toEqual({ messages: 1, recipients: 1, calls: 1, sent: 1 });
  });

  it.each([
    ["a topic fan-out", "topic"],
    ["a broadcast", "broadcast"],
  ] as const)(
    "%s whose recipient jobs were all lost reaches every recipient once",
    async (_name, kind) => {
      const { id, key } = await createSandboxEnvironment();
      await createWorkflow(key, { key: "lost-fan", steps: [{ id: "push", type: "push", template: { title: "News", body: "Hi" } }] });
      const topicKey = unique("topic").toLowerCase();
      const members = 260;
      await seedTopic(id, topicKey, members);
      const accepted = await acceptThenCrash(id, "lost-fan", kind === "topic" ? { topic: topicKey } : person(), {
        loseJob: true,
        topics: [topicKey],
        ...(kind === "broadcast" ? { record: (record) => ({ ...record, recipients: [BROADCAST_RECIPIENT] }) } : {}),
      });
      // The consumer fans out (a coordinator takes the chunks), then every chunk job is lost.
      await consumeLosingOutput(id, accepted.transactionId, accepted.ledger);
      expect(await sendsOf(id, accepted.transactionId)).toMatchObject({ messages: 0 });

      expect((await tickLedger(id, accepted.transactionId, Date.now() + STALL_MS + 1_000)).resumed).toBe(1);
      await eventually(async () => (await readTrigger(id, accepted.transactionId))?.state === "completed", 60_000);
      expect(await sendsOf(id, accepted.transactionId)).toEqual({ messages: members, recipients: members, calls: members, sent: members });
    },
    90_000,
  );

  it("a lost digest resumes after the digest: the step before it is not sent again", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "delay-digest",
      steps: [
        { id: "first", type: "email", template: { subject: "first", text: "Hi" } },
        { id: "collect", type: "digest", window: "PT10M" },
        { id: "last", type: "email", template: { subject: "last", text: "Hi" } },
      ],
    });
    const subscriber = person();
    const transactionId = await trigger(key, { workflow: "delay-digest", to: subscriber });
    const digest = digestOf(id, "delay-digest", subscriber.subscriberId, "");
    await eventually(async () => (await messagesOf(key, transactionId)).length === 1);
    await eventually(async () => {
      return (await digestWaiting(digest)) === 1;
    });
    await runInDurableObject(digest, async (instance: DigestObject, state) => {
      await state.storage.deleteAlarm();
      await instance.close(Date.now());
    });
    expect((await tickLedger(id, transactionId, Date.now() + 10 * 60_000 + STALL_MS + 1_000)).resumed).toBe(1);
    const messages = await settledMessages(key, transactionId, 2);
    expect(byStep(messages, "last").status).toBe("sent");
    expect(await sendsOf(id, transactionId)).toEqual({ messages: 2, recipients: 1, calls: 2, sent: 2 });
  });
});
