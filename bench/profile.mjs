// `npm run bench:profile`: where the accept path's CPU goes. Starts a local Clarion (accept-only,
// rate limits on, as deployed) with the inspector open, drives POST /v1/trigger (or, with
// `--bulk`, bulk calls of 100) at 50 connections for BENCH_SECONDS, or (with `--delivery N`)
// accepts N triggers and waits until they are all sent with the consumers on, and prints the functions
// with the most self time in the Worker's isolate (the accepting Worker and its Durable Objects
// share it locally). Time the isolate spends idle or in the runtime's own C++ (storage commits,
// RPC transport) shows as "(idle)" / "(program)".
import { writeFileSync } from "node:fs";
import { devtools as openDevtools } from "./inspector.mjs";
import { client, ensureBenchTrigger, ensureWorkflow, localDb, loadTest, startServer } from "./server.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const BULK = process.argv.includes("--bulk");
/** `--delivery N`: profile the delivery of N triggers (consumers on) instead of the accept path. */
const DELIVERY = process.argv.includes("--delivery") ? Number(process.argv[process.argv.indexOf("--delivery") + 1] ?? 1000) : 0;
/** `--topic N`: profile one trigger to a topic of N members (push steps), from the trigger until it completes. */
const TOPIC = process.argv.includes("--topic") ? Number(process.argv[process.argv.indexOf("--topic") + 1] ?? 10000) : 0;
/** `--running`: single triggers as without flags, but with the delivery consumers on (bench:trigger's "delivery running"). */
const RUNNING = process.argv.includes("--running");
const INSPECTOR = 9239;
const WORKFLOW = "bench-trigger";

const server = await startServer({
  acceptOnly: !DELIVERY && !TOPIC && !RUNNING,
  inspectorPort: INSPECTOR,
  vars: process.env.BENCH_FLUSH_MS ? { OUTBOX_FLUSH_MS: process.env.BENCH_FLUSH_MS } : {},
});

/** Accepts DELIVERY single-recipient triggers in bulk calls of 100 and waits until their messages are all sent. */
async function deliver(call) {
  const db = await localDb(server.persistTo);
  const run = Date.now().toString(36);
  for (let i = 0; i < DELIVERY; i += 100) {
    const events = Array.from({ length: Math.min(100, DELIVERY - i) }, (_, j) => ({
      workflow: WORKFLOW,
      to: { subscriberId: `p-${run}-${i + j}`, email: `p-${i + j}@example.com` },
      transactionId: `pd-${run}-${i + j}`,
    }));
    const res = await call("POST", "/v1/trigger/bulk", { events });
    if (res.status !== 202) throw new Error(`bulk answered ${res.status}`);
  }
  const started = performance.now();
  for (;;) {
    const [r] = db.all(`SELECT count(*) AS n FROM messages WHERE transaction_id LIKE 'pd-${run}-%' AND status = 'sent'`);
    if (Number(r.n) >= DELIVERY || performance.now() - started > 120_000) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  db.close();
  return `${DELIVERY} triggers delivered`;
}

/** Makes a topic of TOPIC members with push tokens; the returned function triggers it and waits until it completes. */
async function topicFanOut(call) {
  await ensureWorkflow(call, "bench-profile-fanout", "Benchmark fan-out", [
    { id: "push", type: "push", template: { title: "News", body: "Hello {{ subscriber.subscriberId }}" } },
  ]);
  const run = Date.now().toString(36);
  const ids = Array.from({ length: TOPIC }, (_, i) => `pf-${run}-${i}`);
  for (let i = 0; i < ids.length; i += 500) {
    const subscribers = ids
      .slice(i, i + 500)
      .map((subscriberId) => ({ subscriberId, channels: { push: [{ provider: "fcm", token: `t-${subscriberId}` }] } }));
    await call("POST", "/sub/bulk", { subscribers });
  }
  await call("POST", "/v1/topics", { key: `pf-${run}`, name: "Profile topic" });
  for (let i = 0; i < ids.length; i += 1000)
    await call("POST", `/v1/topics/pf-${run}/subscribers`, { subscriberIds: ids.slice(i, i + 1000) });
  return async () => {
    const started = performance.now();
    const { body } = await call("POST", "/v1/trigger", { workflow: "bench-profile-fanout", to: { topic: `pf-${run}` } });
    for (;;) {
      const status = (await call("GET", `/v1/trigger/${body.transactionId}`)).body;
      if (status?.status === "completed" || performance.now() - started > 600_000) break;
      await new Promise((r) => setTimeout(r, 250));
    }
    return `a topic of ${TOPIC} members delivered in ${((performance.now() - started) / 1000).toFixed(2)} s`;
  };
}

try {
  const { call, headers } = client(server.baseUrl, server.key);
  const fanOut = TOPIC ? await topicFanOut(call) : null;
  const event = await ensureBenchTrigger(call);
  const devtools = await openDevtools(INSPECTOR);
  await devtools.send("Profiler.enable");
  await devtools.send("Profiler.setSamplingInterval", { interval: 200 });
  await devtools.send("Profiler.start");
  const load = (options) =>
    loadTest(options).then(
      (r) => `${BULK ? "bulk calls of 100" : "single triggers"}: ${r.requests.total} requests in ${SECONDS} s (${r.non2xx} non-2xx)`,
    );
  const what = fanOut
    ? await fanOut()
    : DELIVERY
      ? await deliver(call)
      : await load(
          BULK
            ? {
                url: `${server.baseUrl}/v1/trigger/bulk`,
                method: "POST",
                headers,
                connections: 10,
                duration: SECONDS,
                body: JSON.stringify({ events: Array.from({ length: 100 }, () => event) }),
              }
            : {
                url: `${server.baseUrl}/v1/trigger`,
                method: "POST",
                headers,
                connections: 50,
                duration: SECONDS,
                body: JSON.stringify(event),
              },
        );
  const {
    result: { profile },
  } = await devtools.send("Profiler.stop");
  devtools.close();
  // PROFILE_OUT=file.cpuprofile keeps the raw profile (Chrome DevTools opens it) for a closer look.
  if (process.env.PROFILE_OUT) writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  profile.samples.forEach((nodeId, i) => {
    const n = byId.get(nodeId);
    const f = n.callFrame;
    const where = f.url ? `${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}` : "";
    const key = `${f.functionName || "(anonymous)"} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(`${what}, ${(total / 1e6).toFixed(1)} s of samples`);
  for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${key}`);
  }
} finally {
  await server.stop();
}
