// `npm run chaos` (local only): kills the local runtime with SIGKILL in the middle of a topic
// fan-out and of bulk triggers, starts it again on the same state, and checks through the API and
// the local D1 that every planned message reaches a terminal state, with exactly one provider
// call per sent message. The local Queue broker is in memory: whatever was queued at the kill is
// gone, so recovery is the ledgers' work (outbox, watchdog, claims).
import { client, ensureWorkflow, localDb, providerCalls, startServer } from "../bench/server.mjs";

const MEMBERS = Number(process.env.CHAOS_MEMBERS ?? 10_000);
const BULK = Number(process.env.CHAOS_BULK ?? 1_000);
const KILL_AFTER_MS = Number(process.env.CHAOS_KILL_AFTER_MS ?? 2_500);
const STALL_SECONDS = "10";
const TIMEOUT_MS = 10 * 60_000;
const WORKFLOW = "chaos";
const TERMINAL = new Set(["sent", "delivered", "opened", "clicked", "failed", "bounced", "undeliverable", "skipped", "cancelled"]);

const vars = { WATCHDOG_STALL_SECONDS: STALL_SECONDS };
const first = await startServer({ vars });
const { call } = client(first.baseUrl, first.key);
await ensureWorkflow(call, WORKFLOW, "Chaos", [
  { id: "push", type: "push", template: { title: "One", body: "first" } },
  { id: "chat", type: "chat", template: { text: "second" } },
]);
const run = Date.now().toString(36);
const ids = Array.from({ length: MEMBERS }, (_, i) => `chaos-${run}-${i}`);
for (let i = 0; i < ids.length; i += 500) {
  const subscribers = ids.slice(i, i + 500).map((subscriberId) => ({
    subscriberId,
    channels: {
      push: [{ provider: "fcm", token: `tok-${subscriberId}` }],
      chat: [{ provider: "slack", webhookUrl: `https://hooks.slack.com/services/T/B/${subscriberId}` }],
    },
  }));
  const res = await call("POST", "/sub/bulk", { subscribers });
  if (res.status !== 200) throw new Error(`/sub/bulk answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
}
const topic = `chaos-${run}`;
await call("POST", "/v1/topics", { key: topic, name: "Chaos" });
for (let i = 0; i < ids.length; i += 1000) await call("POST", `/v1/topics/${topic}/subscribers`, { subscriberIds: ids.slice(i, i + 1000) });
console.log(`set up ${MEMBERS} subscribers in topic ${topic}; workflow: push, then chat`);

const started = performance.now();
const fan = await call("POST", "/v1/trigger", { workflow: WORKFLOW, to: { topic }, transactionId: `chaos-fan-${run}` });
if (fan.status !== 202) throw new Error(`fan-out trigger answered ${fan.status}`);
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
await new Promise((r) => setTimeout(r, KILL_AFTER_MS));
await first.stop({ keep: true });
await bulk;
const count = async () => {
  const db = await localDb(first.persistTo);
  const rows = db.all(`SELECT status, count(*) AS n FROM messages WHERE transaction_id LIKE 'chaos-%${run}%' GROUP BY status`);
  db.close();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
};
const atKill = await count();
console.log(`killed the runtime (SIGKILL) ${KILL_AFTER_MS} ms after the fan-out trigger; ${bulkAccepted} bulk triggers had been accepted`);
console.log(`messages at the kill: ${JSON.stringify(atKill)}`);

const second = await startServer({ vars, restart: { folder: first.folder, key: first.key, encryptionKey: first.encryptionKey } });
const restarted = performance.now();
const expected = (MEMBERS + bulkAccepted) * 2;
let statuses = {};
let settled = 0;
while (performance.now() - restarted < TIMEOUT_MS) {
  statuses = await count();
  settled = Object.entries(statuses).reduce((n, [s, k]) => n + (TERMINAL.has(s) ? k : 0), 0);
  if (settled >= expected) break;
  await new Promise((r) => setTimeout(r, 1000));
}
const recovered = (performance.now() - restarted) / 1000;
const calls = await providerCalls(second.persistTo, `m.transaction_id LIKE 'chaos-%${run}%'`);
const finalDb = await localDb(second.persistTo);
const [{ n: identities }] = finalDb.all(
  `SELECT count(*) AS n FROM (SELECT DISTINCT transaction_id, subscriber_id, step_id FROM messages WHERE transaction_id LIKE 'chaos-%${run}%')`,
);
finalDb.close();
const { call: call2 } = client(second.baseUrl, second.key);
const fanStatus = (await call2("GET", `/v1/trigger/chaos-fan-${run}`)).body;
await second.stop();

console.log(
  `\nafter the restart: ${settled} of ${expected} planned messages terminal in ${recovered.toFixed(1)} s: ${JSON.stringify(statuses)}`,
);
console.log(`fan-out trigger status: ${fanStatus?.status}`);
console.log(`message rows per send identity: ${identities} identities, ${Object.values(statuses).reduce((a, b) => a + b, 0)} rows`);
console.log(`provider calls: ${calls.captures} for ${calls.messages} messages: duplicates ${calls.captures - calls.messages}`);
console.log(`total from the first trigger: ${((performance.now() - started) / 1000).toFixed(1)} s`);
const ok = settled === expected && calls.captures === calls.messages && Number(identities) === expected;
console.log(ok ? "\nOK: every accepted trigger's messages ended in a terminal state exactly once" : "\nFAILED");
if (!ok) process.exitCode = 1;
