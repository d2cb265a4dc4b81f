// `npm run bench:fanout`: a topic of 10,000 subscribers (BENCH_MEMBERS) and a workflow with one
// sandbox push step. Prints the seconds from the trigger until all messages are `sent`, messages
// per second, and the duplicate count (sandbox sends beyond one per message; must be 0).
import { spawnSync } from "node:child_process";
import { call, ensureWorkflow, requireServer } from "./lib.mjs";

const MEMBERS = Number(process.env.BENCH_MEMBERS ?? 10_000);
const WORKFLOW = "bench-fanout";
const TIMEOUT_MS = 15 * 60_000;

if (!(MEMBERS >= 1 && MEMBERS <= 100_000)) {
  console.error("BENCH_MEMBERS must be between 1 and 100000.");
  process.exit(1);
}

await requireServer();
await ensureWorkflow(WORKFLOW, "Benchmark fan-out", [{ id: "push", type: "push", template: { title: "News", body: "Hello {{ subscriber.subscriberId }}" } }]);

const run = Date.now().toString(36);
const topic = `bench-${run}`;
const ids = Array.from({ length: MEMBERS }, (_, i) => `fan-${run}-${i}`);
const setUpStarted = performance.now();
for (let i = 0; i < ids.length; i += 500) {
  const subscribers = ids.slice(i, i + 500).map((subscriberId) => ({ subscriberId, channels: { push: [{ provider: "fcm", token: `tok-${subscriberId}` }] } }));
  const res = await call("POST", "/sub/bulk", { subscribers });
  if (res.status !== 200 || res.body.failed.length) throw new Error(`/sub/bulk answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
}
const created = await call("POST", "/v1/topics", { key: topic, name: "Benchmark topic" });
if (created.status !== 201) throw new Error(`creating the topic answered ${created.status}: ${JSON.stringify(created.body)}`);
for (let i = 0; i < ids.length; i += 1000) {
  const res = await call("POST", `/v1/topics/${topic}/subscribers`, { subscriberIds: ids.slice(i, i + 1000) });
  if (res.status !== 200) throw new Error(`adding members answered ${res.status}: ${JSON.stringify(res.body)}`);
}
console.log(`set-up: ${MEMBERS} subscribers with push tokens in topic ${topic} (${((performance.now() - setUpStarted) / 1000).toFixed(1)} s)`);

const started = performance.now();
const accepted = await call("POST", "/v1/trigger", { workflow: WORKFLOW, to: { topic } });
if (accepted.status !== 202) throw new Error(`trigger answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
const { transactionId } = accepted.body;

let status;
while (performance.now() - started < TIMEOUT_MS) {
  const res = await call("GET", `/v1/trigger/${transactionId}`);
  status = res.body;
  if (status?.status === "completed") break;
  await new Promise((r) => setTimeout(r, 500));
}
const seconds = (performance.now() - started) / 1000;

// Duplicates are read from the local D1 itself: each sandbox capture is one provider call.
const query = `SELECT count(*) AS captures, count(DISTINCT c.message_id) AS messages FROM sandbox_messages c JOIN messages m ON m.id = c.message_id WHERE m.transaction_id = '${transactionId}'`;
const out = spawnSync("wrangler", ["d1", "execute", "DB", "--local", "--json", "--command", query], { encoding: "utf8", env: { ...process.env, CI: "true" } });
const [{ captures, messages }] = JSON.parse(out.stdout)[0].results;

const sent = status?.messages?.byStatus?.sent ?? 0;
console.log(`members              ${MEMBERS}`);
console.log(`trigger status       ${status?.status} (${JSON.stringify(status?.messages?.byStatus)})`);
console.log(`all sent in          ${seconds.toFixed(2)} s (from the trigger)`);
console.log(`messages per second  ${(sent / seconds).toFixed(1)}`);
console.log(`provider calls       ${captures} for ${messages} messages: duplicates ${captures - messages}`);
if (sent !== MEMBERS || captures !== messages) process.exitCode = 1;
