// `npm run chaos` (local only): kills the local runtime with SIGKILL while a 10,000-member topic
// fan-out (once a fifth of its messages exist), a broadcast to 5,000 subscribers (its own
// environment), digests with open windows, and bulk triggers are all in flight; starts it again on the same state, and
// checks through the log shards (their local SQLite files) that every recipient's every step ends
// in exactly one terminal message, with exactly one provider call per sent message. The local
// Queue broker is in memory: whatever was queued at the kill is gone, so recovery is the objects'
// work (outbox, watchdog asking digests and coordinators, claims).
// Provider calls are counted two ways. Push goes through the sandbox provider, whose capture is
// written with the phase's other D1 rows: a send whose phase write died with the runtime leaves
// no capture, so a repeat of it would look like one call. Chat goes through the generic `webhook`
// provider to a local receiver (bench/chat-receiver.mjs) that counts the calls themselves: every
// sent chat message must have been called, and only a call in flight at the kill may be repeated
// after the restart, under the same message id (its `webhook-id`, which a receiver deduplicates),
// or a call whose answer did not come within the provider's timeout (its message's timeline says
// so): the webhook provider deduplicates, so Clarion tries it again under the same id by design.
import { writeFileSync } from "node:fs";
import { startChatReceiver } from "../bench/chat-receiver.mjs";
import { client, ensureWorkflow, localDb, providerCalls, seedPushChatSubscribers, startServer } from "../bench/server.mjs";

const MEMBERS = Number(process.env.CHAOS_MEMBERS ?? 10_000);
const BROADCAST = Number(process.env.CHAOS_BROADCAST ?? 5_000);
const DIGESTED = Number(process.env.CHAOS_DIGESTED ?? 300);
const BULK = Number(process.env.CHAOS_BULK ?? 1_000);
/** The kill comes once this share of the fan-out's messages exist: mid fan-out, however loaded the machine. */
const KILL_AT_SHARE = Number(process.env.CHAOS_KILL_AT_SHARE ?? 0.2);
const STALL_SECONDS = "10";
/** How long recovery may take after the restart (CHAOS_TIMEOUT_S seconds, default 600) before the run fails. */
const TIMEOUT_MS = Number(process.env.CHAOS_TIMEOUT_S ?? 600) * 1000;
const WORKFLOW = "chaos";
const DIGEST_WORKFLOW = "chaos-digest";
const TERMINAL = new Set(["sent", "delivered", "opened", "clicked", "failed", "bounced", "undeliverable", "skipped", "cancelled"]);

const vars = { WATCHDOG_STALL_SECONDS: STALL_SECONDS };
const chat = await startChatReceiver();
const first = await startServer({ vars, environments: ["chaos-broadcast"] });
const { call } = client(first.baseUrl, first.key);
const { call: callBroadcast } = client(first.baseUrl, first.keys["chaos-broadcast"]);
const twoSteps = [
  { id: "push", type: "push", template: { title: "One", body: "first" } },
  // The receiver tells each send's identity (trigger and subscriber) from its text and subscriber.
  { id: "chat", type: "chat", template: { text: "{{ payload.tx }}" } },
];
for (const caller of [call, callBroadcast]) {
  await ensureWorkflow(caller, WORKFLOW, "Chaos", twoSteps);
  const res = await caller("POST", "/v1/integrations", { provider: "webhook", credentials: { secret: chat.secret }, primary: true });
  if (res.status !== 201)
    throw new Error(`creating the chat integration answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
}
// The windows are open at the kill and close while the runtime is down: their alarms fire after the restart.
await ensureWorkflow(call, DIGEST_WORKFLOW, "Chaos digest", [
  { id: "collect", type: "digest", window: "PT10S" },
  { id: "push", type: "push", template: { title: "{{ steps.collect.count }} events", body: "digest" } },
]);

const run = Date.now().toString(36);
const seed = (caller, prefix, count) =>
  seedPushChatSubscribers(
    caller,
    Array.from({ length: count }, (_, i) => `${prefix}-${run}-${i}`),
    chat.urlFor,
  );
const ids = await seed(call, "chaos", MEMBERS);
await seed(callBroadcast, "chaos-bc", BROADCAST);
const topic = `chaos-${run}`;
await call("POST", "/v1/topics", { key: topic, name: "Chaos" });
for (let i = 0; i < ids.length; i += 1000) await call("POST", `/v1/topics/${topic}/subscribers`, { subscriberIds: ids.slice(i, i + 1000) });
console.log(
  `set up ${MEMBERS} subscribers in topic ${topic}, ${BROADCAST} in a second environment for the broadcast; workflow: push, then chat`,
);

const accept = async (caller, path, body) => {
  const res = await caller("POST", path, body).catch(() => null);
  if (res?.status !== 202) throw new Error(`${path} answered ${res?.status}: ${JSON.stringify(res?.body).slice(0, 300)}`);
  return res.body;
};
const started = performance.now();
// Two triggers per digested subscriber: one digest message is sent, the other trigger is recorded digested.
const digestEvents = Array.from({ length: DIGESTED * 2 }, (_, i) => ({
  workflow: DIGEST_WORKFLOW,
  transactionId: `chaos-dg-${run}-${i}`,
  to: ids[i % DIGESTED],
}));
for (let i = 0; i < digestEvents.length; i += 100) await accept(call, "/v1/trigger/bulk", { events: digestEvents.slice(i, i + 100) });
await accept(call, "/v1/trigger", {
  workflow: WORKFLOW,
  to: { topic },
  transactionId: `chaos-fan-${run}`,
  payload: { tx: `chaos-fan-${run}` },
});
await accept(callBroadcast, "/v1/trigger/broadcast", {
  workflow: WORKFLOW,
  transactionId: `chaos-bc-${run}`,
  payload: { tx: `chaos-bc-${run}` },
});
let bulkAccepted = 0;
/** The batch whose request the kill cut: accepted or not, its answer is lost. Sent again after the restart, as a client would. */
let bulkUnanswered = [];
const bulk = (async () => {
  for (let i = 0; i < BULK; i += 100) {
    const events = Array.from({ length: Math.min(100, BULK - i) }, (_, j) => ({
      workflow: WORKFLOW,
      transactionId: `chaos-bulk-${run}-${i + j}`,
      to: ids[(i + j) % ids.length],
      payload: { tx: `chaos-bulk-${run}-${i + j}` },
    }));
    const res = await call("POST", "/v1/trigger/bulk", { events }).catch(() => null);
    // The kill can cut the answer's body after its status.
    if (res?.status !== 202 || !res.body?.results) {
      bulkUnanswered = events;
      return;
    }
    bulkAccepted += res.body.results.filter((r) => r.status === "accepted").length;
  }
})();
const OURS = `transaction_id LIKE 'chaos-%${run}%'`;
const watchDb = await localDb(first.persistTo);
for (;;) {
  const [{ n }] = watchDb.all(`SELECT count(*) AS n FROM messages WHERE transaction_id = 'chaos-fan-${run}'`);
  if (Number(n) >= MEMBERS * 2 * KILL_AT_SHARE || performance.now() - started > 120_000) break;
  await new Promise((r) => setTimeout(r, 100));
}
watchDb.close();
const killedAfter = performance.now() - started;
await first.stop({ keep: true });
await bulk;

const count = async (persistTo) => {
  const db = await localDb(persistTo);
  const rows = db.all(
    `SELECT CASE WHEN transaction_id LIKE 'chaos-dg-%' THEN 'digest' WHEN transaction_id LIKE 'chaos-bc-%' THEN 'broadcast' WHEN transaction_id LIKE 'chaos-fan-%' THEN 'fanout' ELSE 'bulk' END AS part, status, count(*) AS n FROM messages WHERE ${OURS} GROUP BY part, status`,
  );
  db.close();
  const parts = {};
  for (const r of rows) parts[r.part] = { ...parts[r.part], [r.status]: Number(r.n) };
  return parts;
};
const atKill = await count(first.persistTo);
console.log(
  `killed the runtime (SIGKILL) ${(killedAfter / 1000).toFixed(1)} s after the first trigger; ${bulkAccepted} bulk triggers had been accepted`,
);
console.log(`messages at the kill: ${JSON.stringify(atKill)}`);

/**
 * Every call the receiver got before this was made by the killed runtime: none runs until the
 * second starts. Not the moment of the kill: the receiver shares this script's event loop, which
 * the synchronous reads of the log's files above hold up, so a call the killed runtime made just
 * before dying can be read (and stamped) some milliseconds after it.
 */
const restartingAt = Date.now();
const second = await startServer({
  vars,
  restart: { folder: first.folder, key: first.key, keys: first.keys, encryptionKey: first.encryptionKey },
});
const restarted = performance.now();
const { call: call2 } = client(second.baseUrl, second.key);
const { call: callBroadcast2 } = client(second.baseUrl, second.keys["chaos-broadcast"]);
// The cut request sent again with the same transaction ids: those accepted before the kill must not run twice.
if (bulkUnanswered.length) {
  const res = await call2("POST", "/v1/trigger/bulk", { events: bulkUnanswered });
  const statuses = Object.groupBy(res.body?.results ?? [], (r) => r.status ?? r.code ?? "other");
  bulkAccepted += statuses.accepted?.length ?? 0;
  console.log(
    `the bulk request cut by the kill (${bulkUnanswered.length} triggers) sent again: ${res.status}, ${JSON.stringify(Object.fromEntries(Object.entries(statuses).map(([k, v]) => [k, v.length])))}`,
  );
}
// Every recipient's every step ends in one terminal message; a digested subscriber's two triggers each end in one.
const expected = { fanout: MEMBERS * 2, broadcast: BROADCAST * 2, digest: DIGESTED * 2, bulk: bulkAccepted * 2 };
const total = Object.values(expected).reduce((a, b) => a + b, 0);
const terminal = (statuses = {}) => Object.entries(statuses).reduce((n, [s, k]) => n + (TERMINAL.has(s) ? k : 0), 0);
let parts = {};
let settled = 0;
while (performance.now() - restarted < TIMEOUT_MS) {
  parts = await count(second.persistTo);
  settled = Object.values(parts).reduce((n, statuses) => n + terminal(statuses), 0);
  if (settled >= total) break;
  await new Promise((r) => setTimeout(r, 1000));
}
const recovered = (performance.now() - restarted) / 1000;
const calls = await providerCalls(second.persistTo, `m.${OURS} AND m.step_id = 'push'`);
const finalDb = await localDb(second.persistTo);
const [{ n: pushSent }] = finalDb.all(`SELECT count(*) AS n FROM messages WHERE ${OURS} AND step_id = 'push' AND status = 'sent'`);
const chatMessages = finalDb.all(
  `SELECT id, transaction_id AS tx, subscriber_id AS subscriber, status FROM messages WHERE ${OURS} AND step_id = 'chat'`,
);
// Chat attempts that ended unanswered within the provider's timeout and were tried again: the
// webhook provider deduplicates (webhook-id), so Clarion retries it under the same id by design
// (docs/concepts/delivery-guarantees.md, "Timeouts are unknown outcomes"). A loaded machine makes these.
const timedOut = new Map(
  finalDb
    .all(
      `SELECT e.message_id AS id, count(*) AS n FROM message_events AS e JOIN messages AS m ON m.id = e.message_id
       WHERE m.${OURS} AND m.step_id = 'chat' AND e.status = 'queued' AND json_extract(e.detail, '$.error') = 'timeout' GROUP BY e.message_id`,
    )
    .map((r) => [r.id, r.n]),
);
const [{ n: identities, rows }] = finalDb.all(
  `SELECT count(DISTINCT transaction_id || '/' || subscriber_id || '/' || step_id) AS n, count(*) AS rows FROM messages WHERE ${OURS}`,
);
const [{ n: digestSent }] = finalDb.all(
  `SELECT count(*) AS n FROM messages WHERE transaction_id LIKE 'chaos-dg-${run}-%' AND status = 'sent'`,
);
finalDb.close();
// Chat: the receiver's calls against the log's chat messages, by identity (trigger, subscriber).
const chatCalls = Map.groupBy(
  chat.calls().filter((c) => c.text.includes(run)),
  (c) => `${c.text}/${c.subscriberId}`,
);
const chatSent = chatMessages.filter((m) => m.status === "sent");
const neverCalled = chatSent.filter((m) => !chatCalls.has(`${m.tx}/${m.subscriber}`));
const messageOf = new Map(chatMessages.map((m) => [`${m.tx}/${m.subscriber}`, m]));
const calledNotSent = [...chatCalls.keys()].filter((k) => messageOf.get(k)?.status !== "sent");
const otherId = [...chatCalls].filter(([k, list]) => list.some((c) => c.messageId !== messageOf.get(k)?.id));
const repeated = [...chatCalls].filter(([, list]) => list.length > 1);
// A send in flight at the kill (called, its result not recorded) is granted again once its claim
// lapses: the same message id, so a receiver that deduplicates by webhook-id drops the repeat.
const inFlight = repeated.filter(
  ([, [a, b, ...more]]) => more.length === 0 && a.messageId === b.messageId && a.at < restartingAt && b.at >= restartingAt,
);
// Every extra call of a repeat under the message's one id is accounted for by a timed-out attempt
// its timeline shows, or by the kill (one call before the restart, its repeat after).
const afterTimeout = repeated.filter(([k, list]) => {
  if (inFlight.some(([key]) => key === k)) return false;
  const id = messageOf.get(k)?.id;
  const acrossKill = list.some((c) => c.at < restartingAt) && list.some((c) => c.at >= restartingAt) ? 1 : 0;
  return list.every((c) => c.messageId === id) && list.length - 1 <= (timedOut.get(id) ?? 0) + acrossKill;
});
const chatDuplicates = repeated.length - inFlight.length - afterTimeout.length;
const fanStatus = (await call2("GET", `/v1/trigger/chaos-fan-${run}`)).body;
const broadcastStatus = (await callBroadcast2("GET", `/v1/trigger/chaos-bc-${run}`)).body;
if (process.env.CHAOS_LOG) writeFileSync(process.env.CHAOS_LOG, second.log());
await second.stop();

console.log(`\nafter the restart: ${settled} of ${total} planned messages terminal in ${recovered.toFixed(1)} s`);
for (const [part, n] of Object.entries(expected))
  console.log(`  ${part.padEnd(10)} ${terminal(parts[part])} of ${n}: ${JSON.stringify(parts[part] ?? {})}`);
console.log(`fan-out trigger status: ${fanStatus?.status}; broadcast trigger status: ${broadcastStatus?.status}`);
console.log(
  `digests: ${digestSent} sent for ${DIGESTED} subscribers' ${DIGESTED * 2} triggers (the rest digested into them; a pair split by the kill sends two)`,
);
console.log(`message rows per send identity: ${identities} identities, ${rows} rows`);
console.log(
  `push (sandbox captures): ${calls.captures} for ${calls.messages} messages: duplicates ${calls.captures - calls.messages}; ${Number(pushSent) - calls.messages} sent without a capture (recorded from the trigger object's report, the capture lost with the phase's write)`,
);
console.log(
  `chat (calls at the receiver): ${chat.calls().length} calls for ${chatCalls.size} sends, ${chatSent.length} chat messages sent; never called ${neverCalled.length}; called but not sent ${calledNotSent.length}; called under another message id ${otherId.length}; failed verification ${chat.invalid()}`,
);
console.log(
  `chat repeats: ${repeated.length}, of which in flight at the kill and repeated after the restart (same webhook-id): ${inFlight.length}; tried again after a timeout, some also across the kill (same webhook-id): ${afterTimeout.length}; duplicates ${chatDuplicates}`,
);
for (const [k, list] of repeated.filter((r) => !inFlight.includes(r) && !afterTimeout.includes(r)).slice(0, 5))
  console.log(`  ${k}: ${JSON.stringify(list)}`);
console.log(`total from the first trigger: ${((performance.now() - started) / 1000).toFixed(1)} s`);
const ok =
  settled === total &&
  calls.captures === calls.messages &&
  neverCalled.length === 0 &&
  calledNotSent.length === 0 &&
  otherId.length === 0 &&
  chatDuplicates === 0 &&
  chat.invalid() === 0 &&
  Number(identities) === total &&
  Number(rows) === total &&
  Number(digestSent) >= DIGESTED &&
  Number(digestSent) <= DIGESTED * 2;
await chat.close();
console.log(ok ? "\nOK: every recipient's every step ended in exactly one terminal message" : "\nFAILED");
if (!ok) process.exitCode = 1;
