// `npm run bench:delivery`: N triggers to a workflow with one sandbox email step, sent as bulk
// calls of 100; prints the time from the first trigger until all N messages are `sent`.
import { call, ensureWorkflow, requireServer } from "./lib.mjs";

const N = Number(process.env.BENCH_N ?? 1000);
const WORKFLOW = "bench-delivery";
const TIMEOUT_MS = 300_000;

if (!(N >= 1 && N <= 20_000)) {
  console.error("BENCH_N must be between 1 and 20000.");
  process.exit(1);
}

await requireServer();
await ensureWorkflow(WORKFLOW, "Benchmark delivery", [{ id: "email", type: "email", template: { subject: "Hi {{ subscriber.subscriberId }}", text: "Benchmark." } }]);

const run = Date.now().toString(36);
const transactionIds = [];
const started = performance.now();
for (let i = 0; i < N; i += 100) {
  const events = Array.from({ length: Math.min(100, N - i) }, (_, j) => ({
    workflow: WORKFLOW,
    to: { subscriberId: `bench-${run}-${i + j}`, email: `bench-${i + j}@example.com` },
  }));
  const res = await call("POST", "/v1/trigger/bulk", { events });
  if (res.status !== 202) throw new Error(`bulk trigger answered ${res.status}: ${JSON.stringify(res.body)}`);
  for (const r of res.body.results) {
    if (r.status !== "accepted") throw new Error(`an event was refused: ${JSON.stringify(r)}`);
    transactionIds.push(r.transactionId);
  }
}
const accepted = performance.now();

/** Counts this run's sent messages, newest first, stopping at the first older than the run. */
async function countSent() {
  let sent = 0;
  let failed = 0;
  let cursor = "";
  const since = new Date(Date.now() - TIMEOUT_MS - 60_000).toISOString();
  for (;;) {
    const res = await call("GET", `/v1/messages?workflow=${WORKFLOW}&since=${since}&limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`);
    for (const m of res.body.data) {
      if (!m.subscriberId.startsWith(`bench-${run}-`)) continue;
      if (m.status === "sent") sent++;
      else if (m.status === "failed") failed++;
    }
    if (!res.body.nextCursor) return { sent, failed };
    cursor = res.body.nextCursor;
  }
}

let counts = { sent: 0, failed: 0 };
while (performance.now() - started < TIMEOUT_MS) {
  counts = await countSent();
  if (counts.sent + counts.failed >= N) break;
  await new Promise((r) => setTimeout(r, 250));
}
const finished = performance.now();
const seconds = (finished - started) / 1000;
console.log(`N = ${N} triggers (bulk calls of 100), one sandbox email step each`);
console.log(`accepted in            ${((accepted - started) / 1000).toFixed(2)} s`);
console.log(`all messages sent in   ${seconds.toFixed(2)} s (from the first trigger)`);
console.log(`messages sent          ${counts.sent} (failed ${counts.failed})`);
console.log(`messages per second    ${(counts.sent / seconds).toFixed(1)}`);
if (counts.sent < N) process.exitCode = 1;
