import { env } from "cloudflare:test";
import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DeliveryContext } from "../../../src/delivery/context";
import { MessageWrites } from "../../../src/delivery/writes/message-writes";
import type { RecipientsJob } from "../../../src/jobs/job";
import { runRecipients } from "../../../src/delivery/phases/run-recipients";
import { api } from "../../request";
import { createSandboxEnvironment, createWorkflow, unique } from "../../factories";
import { acceptThenCrash } from "../../ledger";
import { loggedCaptureRows, loggedEvents, loggedMessages } from "../../log";

const TRIGGERS = 20;

describe("the writes of a consumer invocation's recipient chunks", () => {
  it("records single triggers' messages, results and events in a few statements together, each message sent once", async () => {
    const { id, key } = await createSandboxEnvironment();
    const workflow = await createWorkflow(key, {
      steps: [{ id: "mail", type: "email", template: { subject: "Shared", text: "Hello" } }],
    });
    const subscriberIds = Array.from({ length: TRIGGERS }, (_, i) => unique(`sw${i}`));
    const created = await api(key, "POST", "/sub/bulk", {
      subscribers: subscriberIds.map((subscriberId) => ({ subscriberId, email: `${subscriberId}@example.com` })),
    });
    expect(created.status).toBe(200);
    // Held in their ledgers, as a consumer invocation finds them: one chunk of one recipient each.
    // One after another: a simulated crash takes down whatever else its shard is doing.
    const held: { subscriberId: string; transactionId: string; ledger: string }[] = [];
    for (const subscriberId of subscriberIds) held.push({ subscriberId, ...(await acceptThenCrash(id, workflow.key, subscriberId)) });

    const ctx = new DeliveryContext(env);
    const runs = await Promise.all(
      held.map(async ({ subscriberId, transactionId, ledger }) => {
        const job: RecipientsJob = {
          v: 1,
          type: "recipients",
          environmentId: id,
          transactionId,
          ledger,
          chunk: 0,
          subscriberIds: [subscriberId],
        };
        const snapshot = await ctx.snapshot(job);
        if (!snapshot) throw new Error(`no trigger ${transactionId} in its ledger`);
        return runRecipients(ctx, job, snapshot);
      }),
    );
    expect(runs.every((r) => r.retry === null && r.exhausted.length === 0)).toBe(true);

    // Reads (6), then captures and outbound events: a few multi-row statements for all twenty
    // chunks (whose claims come back from their shards at different moments), not five or six for
    // each (112 when each chunk wrote its own; under 56 while D1 held the messages, 17 measured now).
    expect(ctx.costs.d1Statements).toBeLessThan(24);
    // The messages and their timelines go to the log: one call per shard per merged phase, not one
    // per chunk and phase (80 with the triggers' index: a message's shard and its trigger's). 41
    // measured; 29 before the index (trigger-index.ts): with 20 triggers over 16 shards a phase's
    // triggers' shards add the few its subscribers' did not already touch. From about 50 triggers
    // a batch, every shard is touched anyway and the index adds rows, not calls.
    expect(ctx.costs.logCalls).toBeLessThan(TRIGGERS * 2.5);
    const sent = await loggedMessages(id, { status: "sent" });
    const captures = await loggedCaptureRows(id);
    expect({ sent: sent.length, subscribers: new Set(sent.map((m) => m.subscriberId)).size, captures: captures.length }).toEqual({
      sent: TRIGGERS,
      subscribers: TRIGGERS,
      captures: TRIGGERS,
    });
    const statuses = new Map<string, number>();
    for (const e of await loggedEvents(id)) statuses.set(e.status, (statuses.get(e.status) ?? 0) + 1);
    const events = { results: [...statuses].sort(([a], [b]) => a.localeCompare(b)).map(([status, n]) => ({ status, n })) };
    // Every message's timeline is whole: queued, sending and sent, once each.
    expect(events.results).toEqual([
      { status: "queued", n: TRIGGERS },
      { status: "sending", n: TRIGGERS },
      { status: "sent", n: TRIGGERS },
    ]);
  });

  it("fails only the chunk whose own write fails when the merged batch fails, and writes the others", async () => {
    const { id } = await createSandboxEnvironment();
    const ctx = new DeliveryContext(env);
    const chunks = Array.from({ length: 4 }, (_, i) => {
      const writes = new MessageWrites(ctx.db, new Date());
      const subscriberId = unique(`mw${i}`);
      const messageId = writes.insertFinal(
        {
          environmentId: id,
          transactionId: unique("tx"),
          subscriberId,
          workflowKey: "w",
          stepId: "s",
          channel: "email",
          workflowVersion: 1,
        },
        "skipped",
        {},
        [{ status: "skipped", detail: { reason: "test" } }],
      );
      writes.capture(id, messageId, { channel: "email", provider: "sandbox", to: `${subscriberId}@example.com`, content: {} });
      // A D1 row of the chunk's: the suppression list is D1's (captures go to the log with the message).
      writes.suppress({ environmentId: id, channel: "email", address: `${subscriberId}@example.com`, reason: "hard_bounce", messageId });
      return { subscriberId, writes };
    });
    // A row D1 refuses (as it would one over its row size) in one chunk of the four written together.
    chunks[2]!.writes.statements.push(ctx.db.run(sql`INSERT INTO messages (id) VALUES (${unique("bad")})`));

    const settled = await Promise.allSettled(chunks.map((c) => ctx.writeMessages(c.writes)));
    expect(settled.map((s) => s.status)).toEqual(["fulfilled", "fulfilled", "rejected", "fulfilled"]);
    // Each chunk's D1 batch is whole or absent: the others' suppressions are written, the failed one's not.
    const written = await env.DB.prepare("SELECT address FROM suppressions WHERE environment_id = ? ORDER BY address")
      .bind(id)
      .all<{ address: string }>();
    expect(written.results.map((r) => r.address)).toEqual(
      chunks
        .filter((_, i) => i !== 2)
        .map((c) => `${c.subscriberId}@example.com`)
        .sort(),
    );
    // The log is written before D1, and again for each chunk alone after the merged batch failed:
    // every chunk's message and timeline entry is there once (the failed chunk's too, which its
    // retry finds already recorded).
    const logged = await loggedMessages(id);
    expect(logged.map((m) => m.subscriberId).sort()).toEqual(chunks.map((c) => c.subscriberId).sort());
    expect(await loggedEvents(id)).toHaveLength(4);
    // A capture goes with its message, once: the failed chunk's too (its retry wrote the same capture again).
    expect((await loggedCaptureRows(id)).map((c) => c.to).sort()).toEqual(chunks.map((c) => `${c.subscriberId}@example.com`).sort());
  });
});
