// `npm run bench:fanout`: topics of 10,000 and 100,000 subscribers (or BENCH_MEMBERS) and a
// workflow with one sandbox push step, on a Clarion this script starts (bench/server.mjs). Prints
// the seconds from the trigger until it is `completed` (its record's own time: the status poll every
// 250 ms comes up to 250 ms late, some 10 % of a 10,000-member run; the poll's figure and the last
// message's own status time are printed too), messages per second, and the
// duplicate count (sandbox sends beyond one per message; must be 0). Before each fan-out it
// measures GET /health on the same server (50 connections for BENCH_HEALTH_SECONDS, default 5,
// as bench:trigger does) and prints messages/s as a ratio to that rate: the measure.
// BENCH_REPEAT=N triggers each topic N times on its one set-up (default 1): on a shared machine
// whose speed moves between runs, several runs tell more than one, and the 100,000 subscribers'
// set-up is most of a run's time.
import { loadavg } from "node:os";
import { benchRepeat, client, cpuSpent, ensureWorkflow, loadTest, providerCalls, runEnd, startServer } from "./server.mjs";

const SIZES = process.env.BENCH_MEMBERS ? [Number(process.env.BENCH_MEMBERS)] : [10_000, 100_000];
const WORKFLOW = "bench-fanout";
const TIMEOUT_MS = 15 * 60_000;
const HEALTH_SECONDS = Number(process.env.BENCH_HEALTH_SECONDS ?? 5);
const REPEAT = benchRepeat();

/** GET /health's requests per second on this server now, at bench:trigger's 50 connections. */
const healthRate = (baseUrl) =>
  loadTest({ url: `${baseUrl}/health`, connections: 50, duration: HEALTH_SECONDS }).then((r) => r.requests.total / HEALTH_SECONDS);

if (!SIZES.every((n) => n >= 1 && n <= 100_000)) {
  console.error("BENCH_MEMBERS must be between 1 and 100000.");
  process.exit(1);
}

/** A topic of `members` new subscribers with push tokens; its key. */
async function setUp(server, members) {
  const { call } = client(server.baseUrl, server.key);
  const run = Date.now().toString(36);
  const topic = `bench-${run}`;
  const ids = Array.from({ length: members }, (_, i) => `fan-${run}-${i}`);
  const setUpStarted = performance.now();
  for (let i = 0; i < ids.length; i += 500) {
    const subscribers = ids
      .slice(i, i + 500)
      .map((subscriberId) => ({ subscriberId, channels: { push: [{ provider: "fcm", token: `tok-${subscriberId}` }] } }));
    const res = await call("POST", "/sub/bulk", { subscribers });
    if (res.status !== 200) throw new Error(`/sub/bulk answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  const created = await call("POST", "/v1/topics", { key: topic, name: "Benchmark topic" });
  if (created.status !== 201) throw new Error(`creating the topic answered ${created.status}: ${JSON.stringify(created.body)}`);
  for (let i = 0; i < ids.length; i += 1000) {
    const res = await call("POST", `/v1/topics/${topic}/subscribers`, { subscriberIds: ids.slice(i, i + 1000) });
    if (res.status !== 200) throw new Error(`adding members answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  console.log(
    `\nset-up: ${members} subscribers with push tokens in topic ${topic} (${((performance.now() - setUpStarted) / 1000).toFixed(1)} s)`,
  );
  return topic;
}

/** One trigger to the topic, timed until it completes; true when every member got exactly one message. */
async function fanOut(server, topic, members, round) {
  const { call } = client(server.baseUrl, server.key);
  if (REPEAT > 1) console.log(`run ${round} of ${REPEAT}`);
  const health = await healthRate(server.baseUrl);
  const load = loadavg()[0].toFixed(2);
  const cpuBefore = server.cpuSeconds();
  const started = performance.now();
  const startedAt = Date.now();
  const accepted = await call("POST", "/v1/trigger", { workflow: WORKFLOW, to: { topic } });
  if (accepted.status !== 202) throw new Error(`trigger answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
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
  const { captures, messages } = await providerCalls(server.persistTo, `m.transaction_id = '${transactionId}'`);
  const sent = status?.messages?.byStatus?.sent ?? 0;
  console.log(`members              ${members}`);
  console.log(`trigger status       ${status?.status} (${JSON.stringify(status?.messages?.byStatus)})`);
  console.log(
    `all sent in          ${seconds.toFixed(2)} s (from the trigger to its completion, the trigger record's own time${cpu}; load average ${load} before)`,
  );
  console.log(`  last message sent   ${lastSent.toFixed(2)} s (its own status time; written to the log after it)`);
  console.log(`  seen by the poll in ${polled.toFixed(2)} s (every 250 ms; ${(sent / polled / health).toFixed(2)} × /health)`);
  console.log(
    `messages per second  ${(sent / seconds).toFixed(1)}: ${(sent / seconds / health).toFixed(2)} × /health (${health.toFixed(0)} req/s just before)`,
  );
  console.log(`provider calls       ${captures} for ${messages} messages: duplicates ${captures - messages}`);
  return sent === members && captures === messages;
}

const server = await startServer();
let ok = true;
try {
  const { call } = client(server.baseUrl, server.key);
  await ensureWorkflow(call, WORKFLOW, "Benchmark fan-out", [
    { id: "push", type: "push", template: { title: "News", body: "Hello {{ subscriber.subscriberId }}" } },
  ]);
  for (const n of SIZES) {
    const topic = await setUp(server, n);
    for (let round = 1; round <= REPEAT; round++) ok = (await fanOut(server, topic, n, round)) && ok;
  }
} finally {
  await server.stop();
}
if (!ok) process.exitCode = 1;
