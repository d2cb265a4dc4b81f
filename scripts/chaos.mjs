// `npm run chaos` (local only): kills the local runtime with SIGKILL while a 10,000-member topic
// fan-out (once a fifth of its messages exist), a broadcast to 5,000 subscribers (its own
// environment), digests with open windows, and bulk triggers are all in flight; starts it again on the same state, and
// checks through the local D1 that every recipient's every step ends in exactly one terminal
// message, with exactly one provider call per sent message. The local Queue broker is in memory:
// whatever was queued at the kill is gone, so recovery is the objects' work (outbox, watchdog
// asking digests and coordinators, claims).
import { writeFileSync } from "node:fs";
import { client, ensureWorkflow, localDb, providerCalls, seedPushChatSubscribers, startServer } from "../bench/server.mjs";

const MEMBERS = Number(process.env.CHAOS_MEMBERS ?? 10_000);
const BROADCAST = Number(process.env.CHAOS_BROADCAST ?? 5_000);
const DIGESTED = Number(process.env.CHAOS_DIGESTED ?? 300);
const BULK = Number(process.env.CHAOS_BULK ?? 1_000);
/** The kill comes once this share of the fan-out's messages exist: mid fan-out, however loaded the machine. */
const KILL_AT_SHARE = Number(process.env.CHAOS_KILL_AT_SHARE ?? 0.2);
const STALL_SECONDS = "10";
const TIMEOUT_MS = 10 * 60_000;
const WORKFLOW = "chaos";
const DIGEST_WORKFLOW = "chaos-digest";
const TERMINAL = new Set(["sent", "delivered", "opened", "clicked", "failed", "bounced", "undeliverable", "skipped", "cancelled"]);

const vars = { WATCHDOG_STALL_SECONDS: STALL_SECONDS };
const first = await startServer({ vars, environments: ["chaos-broadcast"] });
const { call } = client(first.baseUrl, first.key);
const { call: callBroadcast } = client(first.baseUrl, first.keys["chaos-broadcast"]);
const twoSteps = [
  { id: "push", type: "push", template: { title: "One", body: "first" } },
  { id: "chat", type: "chat", template: { text: "second" } },
];
await ensureWorkflow(call, WORKFLOW, "Chaos", twoSteps);
await ensureWorkflow(callBroadcast, WORKFLOW, "Chaos", twoSteps);
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
await accept(call, "/v1/trigger", { workflow: WORKFLOW, to: { topic }, transactionId: `chaos-fan-${run}` });
await accept(callBroadcast, "/v1/trigger/broadcast", { workflow: WORKFLOW, transactionId: `chaos-bc-${run}` });
let bulkAccepted = 0;
const bulk = (async () => {
  for (let i = 0; i < BULK; i += 100) {
    const events = Array.from({ length: Math.min(100, BULK - i) }, (_, j) => ({
      workflow: WORKFLOW,
      transactionId: `chaos-bulk-${run}-${i + j}`,
      to: ids[(i + j) % ids.length],
    }));
    const res = await call("POST", "/v1/trigger/bulk", { events }).catch(() => null);
    if (res?.status !== 202) return;
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

const second = await startServer({
  vars,
  restart: { folder: first.folder, key: first.key, keys: first.keys, encryptionKey: first.encryptionKey },
});
const restarted = performance.now();
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
const calls = await providerCalls(second.persistTo, `m.${OURS}`);
const finalDb = await localDb(second.persistTo);
const [{ n: identities, rows }] = finalDb.all(
  `SELECT count(DISTINCT transaction_id || '/' || subscriber_id || '/' || step_id) AS n, count(*) AS rows FROM messages WHERE ${OURS}`,
);
const [{ n: digestSent }] = finalDb.all(
  `SELECT count(*) AS n FROM messages WHERE transaction_id LIKE 'chaos-dg-${run}-%' AND status = 'sent'`,
);
finalDb.close();
const { call: call2 } = client(second.baseUrl, second.key);
const { call: callBroadcast2 } = client(second.baseUrl, second.keys["chaos-broadcast"]);
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
console.log(`provider calls: ${calls.captures} for ${calls.messages} messages: duplicates ${calls.captures - calls.messages}`);
console.log(`total from the first trigger: ${((performance.now() - started) / 1000).toFixed(1)} s`);
const ok =
  settled === total &&
  calls.captures === calls.messages &&
  Number(identities) === total &&
  Number(rows) === total &&
  Number(digestSent) >= DIGESTED &&
  Number(digestSent) <= DIGESTED * 2;
console.log(ok ? "\nOK: every recipient's every step ended in exactly one terminal message" : "\nFAILED");
if (!ok) process.exitCode = 1;
