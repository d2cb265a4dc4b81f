import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CLAIM_DEADLINE_MS, type ClaimResult, type DeliveryOpResult } from "../../src/durable-objects/ledger/claims";
import { DeliveryState } from "../../src/durable-objects/ledger/delivery-state";
import { subscriberPartition } from "../../src/durable-objects/client/log-naming";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { newLogId } from "../../src/lib/ids";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { ledgerOf, readTrigger } from "../ledger";
import { sendMessageId } from "../../src/delivery/writes/message-writes";
import { api } from "../request";
import { createSandboxEnvironment, unique } from "../factories";
import { createWorkflow, messageDetail, settledMessages, trigger, eventually } from "./helpers";
import { loggedTrigger } from "../log";

type Left = { environmentId: string; transactionId: string; subscriberId: string; workflowKey: string; suffix: string };

/**
 * A message in `sending`, as a consumer that died left it: in the log (where delivery writes), or
 * in D1 before the log left it (an upgraded deployment's row, with an id without a partition).
 */
async function leaveSending(where: "log" | "D1", m: Left, at: number): Promise<string> {
  if (where === "D1") {
    const id = `msg_${"0".repeat(28)}${m.suffix}`;
    await env.DB.prepare(
      "INSERT INTO messages (id, environment_id, transaction_id, subscriber_id, workflow_key, step_id, channel, status, attempts, created_at, updated_at) VALUES (?, ?, ?, ?, ?, 'mail', 'email', 'sending', 0, ?, ?)",
    )
      .bind(id, m.environmentId, m.transactionId, m.subscriberId, m.workflowKey, at, at)
      .run();
    // Only a trigger accepted before the log moved has messages in D1: its record does not say `messagesInLog`.
    await runInDurableObject(ledgerOf(m.environmentId, m.transactionId), (_l: TriggerLedger, state) => {
      state.storage.sql.exec("UPDATE triggers SET record = json_remove(record, '$.messagesInLog') WHERE tx = ?", m.transactionId);
    });
    return id;
  }
  const id = newLogId("msg", subscriberPartition(m.environmentId, m.subscriberId));
  const store = new LogStore(env);
  const batch = store.batch();
  batch.insert({
    id,
    environmentId: m.environmentId,
    transactionId: m.transactionId,
    subscriberId: m.subscriberId,
    workflowKey: m.workflowKey,
    stepId: "mail",
    channel: "email",
    provider: null,
    integrationId: null,
    status: "sending",
    providerMessageId: null,
    to: null,
    subject: null,
    preview: null,
    content: null,
    errorCode: null,
    errorMessage: null,
    attempts: 0,
    createdAt: at,
    updatedAt: at,
  });
  await store.write(batch);
  return id;
}

/**
 * A consumer's claim (and what a consumer that then died leaves behind), at a chosen time. A
 * consumer claims only once its trigger's fan-out is recorded, so that is left behind too (the
 * next consumer then reads what the log holds: it is not the trigger's first run).
 */
const claimAt = (environmentId: string, transactionId: string, key: string, at: number) =>
  runInDurableObject(ledgerOf(environmentId, transactionId), async (ledger: TriggerLedger, state) => {
    await ledger.fanOut([{ environmentId, transactionId, chunks: [[key.split("\u0000")[0]!]] }]);
    return new DeliveryState(state.storage.sql).claim(environmentId, transactionId, [key], [], false, at);
  });

describe("claims in the trigger's Durable Object", () => {
  it("grants a send identity once, refuses it while claimed, and never again once sent", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "claims", steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hello" } }] });
    const transactionId = await trigger(key, { workflow: "claims", to: unique("nobody") });
    const ledger = ledgerOf(id, transactionId);
    const ids = { environmentId: id, transactionId };
    const claim = async () =>
      ((await ledger.run([{ kind: "claim", ...ids, send: ["a\u0000x"], final: [] }])) as DeliveryOpResult[])[0] as { result: ClaimResult };
    const report = { providerMessageId: "p-1", provider: "sandbox-email", integrationId: "int_x", to: "a@example.com", attempts: 1 };
    expect((await claim()).result).toEqual({ granted: ["a\u0000x"], cancelled: [], busy: [], sent: [], final: [] });
    expect((await claim()).result).toEqual({ granted: [], cancelled: [], busy: ["a\u0000x"], sent: [], final: [] });
    await ledger.run([{ kind: "report", ...ids, reports: [{ key: "a\u0000x", outcome: "sent", report }] }]);
    expect((await claim()).result).toEqual({ granted: [], cancelled: [], busy: [], sent: [{ key: "a\u0000x", report }], final: [] });
  });

  it.each(["log", "D1"] as const)(
    "re-sends a message left in `sending` (in %s) by a consumer that died, once its claim is past the deadline",
    async (where) => {
      const { id, key } = await createSandboxEnvironment();
      await createWorkflow(key, { key: "stuck", steps: [{ id: "mail", type: "email", template: { subject: "stuck", text: "Hello" } }] });
      const subscriberId = unique("s");
      await api(key, "POST", "/sub", { subscriberId, email: "stuck@example.com" });
      const transactionId = await trigger(key, { workflow: "stuck", to: subscriberId });
      // What a consumer that crashed after claiming leaves behind: a claim without a report and a message in `sending`.
      await claimAt(id, transactionId, `${subscriberId}\u0000mail`, Date.now() - CLAIM_DEADLINE_MS - 1_000);
      const left = await leaveSending(
        where,
        { environmentId: id, transactionId, subscriberId, workflowKey: "stuck", suffix: "dead" },
        Date.now(),
      );

      const [message] = await settledMessages(key, transactionId, 1);
      expect(message).toMatchObject({ id: left, status: "sent", attempts: 1 });
      expect((await messageDetail(key, message!.id)).events.map((e) => e.status)).toEqual(["sending", "sent"]);
    },
  );

  it("records a send whose D1 write was lost from what the trigger object kept, without sending again", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "lost", steps: [{ id: "mail", type: "email", template: { subject: "lost", text: "Hello" } }] });
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId, email: "lost@example.com" });
    const transactionId = await trigger(key, { workflow: "lost", to: subscriberId });
    // A consumer sent, reported to the object, then died before its D1 write.
    const report = {
      providerMessageId: "sandbox_earlier",
      provider: "sandbox-email",
      integrationId: "int_earlier",
      to: "lost@example.com",
      attempts: 1,
    };
    await claimAt(id, transactionId, `${subscriberId}\u0000mail`, Date.now());
    await ledgerOf(id, transactionId).run([
      { kind: "report", environmentId: id, transactionId, reports: [{ key: `${subscriberId}\u0000mail`, outcome: "sent", report }] },
    ]);
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message).toMatchObject({ status: "sent", providerMessageId: "sandbox_earlier", provider: "sandbox-email", attempts: 1 });
    const detail = await messageDetail(key, message!.id);
    expect(detail.events.at(-1)).toMatchObject({ status: "sent", detail: { recovered: true } });
    // No row held it (a message is written once, after its send): the row gets the id the send
    // used (the provider's idempotency key, the email's links) and the content it was planned with.
    const { acceptedAt } = (await readTrigger(id, transactionId))!;
    const identity = { environmentId: id, transactionId, subscriberId, workflowKey: "lost", stepId: "mail", channel: "email" };
    expect(message!.id).toBe(sendMessageId({ ...identity, workflowVersion: null }, acceptedAt));
    expect(detail).toMatchObject({ subject: "lost", content: { subject: "lost", text: "Hello" } });
    expect(detail.events.map((e) => e.status)).toEqual(["queued", "sending", "sent"]);
    const captures = await api<{ data: unknown[] }>(key, "GET", `/v1/sandbox/messages?messageId=${message!.id}`);
    expect(captures.body.data).toEqual([]);
  });

  it("records an in-app send whose D1 write was lost as delivered, as a send records it", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "lost-inbox",
      steps: [{ id: "inbox", type: "in_app", template: { subject: "lost", body: "Hello" } }],
    });
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId });
    const transactionId = await trigger(key, { workflow: "lost-inbox", to: subscriberId });
    // A consumer stored the notification, reported to the object, then died before its D1 write.
    const report = { providerMessageId: "inapp_earlier", provider: "in_app", integrationId: "int_earlier", to: subscriberId, attempts: 1 };
    await claimAt(id, transactionId, `${subscriberId}\u0000inbox`, Date.now());
    await ledgerOf(id, transactionId).run([
      { kind: "report", environmentId: id, transactionId, reports: [{ key: `${subscriberId}\u0000inbox`, outcome: "sent", report }] },
    ]);
    const [message] = await settledMessages(key, transactionId, 1);
    expect(message).toMatchObject({ status: "delivered", providerMessageId: "inapp_earlier", attempts: 1 });
    const events = (await messageDetail(key, message!.id)).events;
    expect(events.slice(-2)).toMatchObject([
      { status: "sent", detail: { recovered: true } },
      { status: "delivered", detail: { recovered: true } },
    ]);
  });

  it.each(["log", "D1"] as const)(
    "records a failure whose write (a message in %s) was lost from what the trigger object kept, and completes the trigger",
    async (where) => {
      const { id, key } = await createSandboxEnvironment();
      await createWorkflow(key, { key: "lostfail", steps: [{ id: "mail", type: "email", template: { subject: "lost", text: "Hello" } }] });
      const subscriberId = unique("s");
      await api(key, "POST", "/sub", { subscriberId, email: "lostfail@example.com" });
      const transactionId = await trigger(key, { workflow: "lostfail", to: subscriberId });
      // A consumer's send failed for good, it reported that to the object, then its D1 write was lost.
      const report = {
        status: "undeliverable" as const,
        errorCode: "invalid_recipient",
        errorMessage: "No such mailbox.",
        provider: "sandbox-email",
        integrationId: "int_earlier",
        to: "lostfail@example.com",
        attempts: 1,
      };
      await claimAt(id, transactionId, `${subscriberId}\u0000mail`, Date.now());
      const recordedAt = Date.now() - 1_000;
      const left = await leaveSending(
        where,
        { environmentId: id, transactionId, subscriberId, workflowKey: "lostfail", suffix: "fail" },
        recordedAt,
      );
      await ledgerOf(id, transactionId).run([
        { kind: "report", environmentId: id, transactionId, reports: [{ key: `${subscriberId}\u0000mail`, outcome: "final", report }] },
      ]);
      const [message] = await settledMessages(key, transactionId, 1);
      expect(message).toMatchObject({
        id: left,
        status: "undeliverable",
        error: { code: "invalid_recipient", message: "No such mailbox." },
        provider: "sandbox-email",
        attempts: 1,
      });
      const detail = await messageDetail(key, message!.id);
      // Its whole timeline, once: the lost batch's first-attempt events, then the recovered end.
      expect(detail.events.map((e) => e.status)).toEqual(["queued", "sending", "undeliverable"]);
      expect(detail.events.at(-1)).toMatchObject({ detail: { recovered: true, error: "invalid_recipient" } });
      await eventually(async () => {
        return (await loggedTrigger(id, transactionId))?.status === "completed";
      });
    },
  );
});
