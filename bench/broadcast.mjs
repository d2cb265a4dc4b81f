// `npm run bench:broadcast`: a broadcast (POST /v1/trigger/broadcast) to an environment of
// 100,000 subscribers (or BROADCAST_SUBSCRIBERS) with a workflow of one sandbox push step, on a
// Clarion this script starts (bench/server.mjs), so the environment holds exactly the subscribers
// seeded here. Prints the accept latency, the seconds from the broadcast until all messages are
// `sent` (the broadcast's own completion time, read from its record as bench:fanout does; the 250 ms
// status poll's figure too), messages per second, and the duplicate count (sandbox sends beyond
// one per message; must be 0). BENCH_REPEAT=N broadcasts N times to the one set-up (default 1;
// see bench:fanout).
import { loadavg } from "node:os";
import { benchRepeat, client, cpuSpent, ensureWorkflow, providerCalls, runEnd, startServer } from "./server.mjs";

const SUBSCRIBERS = Number(process.env.BROADCAST_SUBSCRIBERS ?? 100_000);
const WORKFLOW = "bench-broadcast";
const TIMEOUT_MS = 15 * 60_000;
const REPEAT = benchRepeat();

if (!Number.isInteger(SUBSCRIBERS) || SUBSCRIBERS < 1 || SUBSCRIBERS > 100_000) {
  console.error("BROADCAST_SUBSCRIBERS must be an integer between 1 and 100000.");
  process.exit(1);
}

async function seed(call, count) {
  const run = Date.now().toString(36);
  const started = performance.now();
  for (let i = 0; i < count; i += 500) {
    const subscribers = Array.from({ length: Math.min(500, count - i) }, (_, j) => {
      const subscriberId = `bc-${run}-${i + j}`;
      return { subscriberId, channels: { push: [{ provider: "fcm", token: `tok-${subscriberId}` }] } };
    });
    const res = await call("POST", "/sub/bulk", { subscribers });
    if (res.status !== 200) throw new Error(`/sub/bulk answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  console.log(`\nset-up: ${count} subscribers with push tokens (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}

async function broadcastOnce(call) {
  const load = loadavg()[0].toFixed(2);
  const cpuBefore = server.cpuSeconds();
  const started = performance.now();
  const startedAt = Date.now();
  const accepted = await call("POST", "/v1/trigger/broadcast", { workflow: WORKFLOW });
  const acceptMs = performance.now() - started;
  if (accepted.status !== 202) throw new Error(`broadcast answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
  const { transactionId } = accepted.body;
  let status;
  while (performance.now() - started < TIMEOUT_MS) {
    status = (await call("GET", `/v1/trigger/${transactionId}`)).body;
    if (status?.status === "completed") break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const polled = (performance.now() - started) / 1000;
  const cpu = cpuSpent(cpuBefore, server.cpuSeconds());
  const { seconds, lastSent } = await runEnd(server.persistTo, transactionId, status, startedAt, polled);
  return { transactionId, status, seconds, polled, lastSent, acceptMs, cpu, load };
}

const server = await startServer();
let ok = true;
try {
  const { call } = client(server.baseUrl, server.key);
  await ensureWorkflow(call, WORKFLOW, "Benchmark broadcast", [
    { id: "push", type: "push", template: { title: "News", body: "Hello {{ subscriber.subscriberId }}" } },
  ]);
  await seed(call, SUBSCRIBERS);
  for (let round = 1; round <= REPEAT; round++) {
    if (REPEAT > 1) console.log(`run ${round} of ${REPEAT}`);
    const { transactionId, status, seconds, polled, lastSent, acceptMs, cpu, load } = await broadcastOnce(call);
    const { captures, messages } = await providerCalls(server.persistTo, `m.transaction_id = '${transactionId}'`);
    const sent = status?.messages?.byStatus?.sent ?? 0;
    console.log(`subscribers          ${SUBSCRIBERS}`);
    console.log(`accepted in          ${acceptMs.toFixed(1)} ms (202)`);
    console.log(`trigger status       ${status?.status} (${JSON.stringify(status?.messages?.byStatus)})`);
    console.log(
      `all sent in          ${seconds.toFixed(2)} s (from the broadcast to its completion, the trigger record's own time${cpu}; load average ${load} before)`,
    );
    console.log(`  last message sent   ${lastSent.toFixed(2)} s (its own status time; written to the log after it)`);
    console.log(`  seen by the poll in ${polled.toFixed(2)} s (every 250 ms)`);
    console.log(`messages per second  ${(sent / seconds).toFixed(1)}`);
    console.log(`provider calls       ${captures} for ${messages} messages: duplicates ${captures - messages}`);
    ok = sent === SUBSCRIBERS && captures === messages && ok;
  }
} finally {
  await server.stop();
}
if (!ok) process.exitCode = 1;
