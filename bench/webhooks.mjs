// `npm run bench:webhooks`: event webhooks on a Clarion this script starts (bench/server.mjs).
// 1. The accept path (POST /v1/trigger against GET /health, alternating, accept-only server)
//    with no endpoint and with one endpoint taking `message.sent`: the endpoint must not cost
//    the accept path more than 5 %.
// 2. A fan-out to 10,000 subscribers (BENCH_EVENTS) through a sandbox push step, once with no
//    endpoint and once with one taking `message.sent`: the seconds until every message is sent
//    (emission must not slow sends), and with the endpoint the seconds until the local receiver
//    (bench/webhook-receiver.mjs, verifying each request with `standardwebhooks`) has all 10,000
//    events, events per second and duplicates.
import { loadavg } from "node:os";
import { client, ensureWorkflow, localDb, loadTest, startServer } from "./server.mjs";
import { startReceiver } from "./webhook-receiver.mjs";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 6);
const ROUNDS = 2;
const FAN_OUT_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const CONNECTIONS = 50;
const WORKFLOW = "bench-webhooks";
const TIMEOUT_MS = 20 * 60_000;
const load = () => loadavg()[0].toFixed(2);
const STEPS = [{ id: "push", type: "push", template: { title: "News", body: "Hello {{ subscriber.subscriberId }}" } }];

const measure = (options) => loadTest({ connections: CONNECTIONS, duration: SECONDS, ...options });
const rps = (r) => r.requests.total / SECONDS;

async function acceptPath() {
  const server = await startServer({ acceptOnly: true });
  try {
    const { call, headers } = client(server.baseUrl, server.key);
    await ensureWorkflow(call, WORKFLOW, "Benchmark webhooks", STEPS);
    await call("POST", "/sub", { subscriberId: "bench-subscriber", channels: { push: [{ provider: "fcm", token: "tok-bench" }] } });
    const receiver = await startReceiver();
    const ratios = { none: [], one: [] };
    const before = load();
    for (let round = 0; round < ROUNDS; round++) {
      for (const mode of ["none", "one"]) {
        let endpointId = null;
        if (mode === "one") {
          const created = await call("POST", "/v1/webhook-endpoints", { url: receiver.url, events: ["message.sent"] });
          if (created.status !== 201) throw new Error(`creating the endpoint answered ${created.status}`);
          endpointId = created.body.id;
        }
        const health = await measure({ url: `${server.baseUrl}/health` });
        const trigger = await measure({
          url: `${server.baseUrl}/v1/trigger`,
          method: "POST",
          headers,
          idReplacement: true,
          body: JSON.stringify({ workflow: WORKFLOW, to: "bench-subscriber", transactionId: `wh-${mode}-${round}-${Date.now()}-[<id>]` }),
        });
        if (trigger.non2xx || trigger.errors)
          throw new Error(`the accept path answered ${trigger.non2xx} non-2xx, ${trigger.errors} errors`);
        ratios[mode].push(rps(trigger) / rps(health));
        console.log(
          `round ${round + 1}, ${mode === "none" ? "no endpoint " : "one endpoint"}: /health ${rps(health).toFixed(0)} req/s, POST /v1/trigger ${rps(trigger).toFixed(0)} req/s (p99 ${trigger.latency.p99} ms), ratio ${(rps(trigger) / rps(health)).toFixed(3)}`,
        );
        if (endpointId) await call("DELETE", `/v1/webhook-endpoints/${endpointId}`);
      }
    }
    await receiver.close();
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const cost = 1 - mean(ratios.one) / mean(ratios.none);
    console.log(
      `accept path with one endpoint vs none: ${(mean(ratios.one) / mean(ratios.none)).toFixed(3)} (cost ${(cost * 100).toFixed(1)} %; load average ${before} before, ${load()} after)`,
    );
  } finally {
    await server.stop();
  }
}

async function seedTopic(call, run) {
  const ids = Array.from({ length: EVENTS }, (_, i) => `wh-${run}-${i}`);
  for (let i = 0; i < ids.length; i += 500) {
    const subscribers = ids
      .slice(i, i + 500)
      .map((subscriberId) => ({ subscriberId, channels: { push: [{ provider: "fcm", token: `tok-${subscriberId}` }] } }));
    const res = await call("POST", "/sub/bulk", { subscribers });
    if (res.status !== 200) throw new Error(`/sub/bulk answered ${res.status}`);
  }
  const topic = `wh-${run}`;
  await call("POST", "/v1/topics", { key: topic, name: "Benchmark webhooks" });
  for (let i = 0; i < ids.length; i += 1000)
    await call("POST", `/v1/topics/${topic}/subscribers`, { subscriberIds: ids.slice(i, i + 1000) });
  return topic;
}

async function fanOut(server, call, topic, receiver) {
  const db = await localDb(server.persistTo);
  const started = performance.now();
  const accepted = await call("POST", "/v1/trigger", { workflow: WORKFLOW, to: { topic } });
  if (accepted.status !== 202) throw new Error(`trigger answered ${accepted.status}`);
  const { transactionId } = accepted.body;
  let sentAt = null;
  let receivedAt = null;
  while (performance.now() - started < TIMEOUT_MS) {
    if (sentAt === null) {
      const [r] = db.all(`SELECT count(*) AS n FROM messages WHERE transaction_id = '${transactionId}' AND status = 'sent'`);
      if (Number(r.n) >= EVENTS) sentAt = performance.now();
    }
    if (receiver && receivedAt === null && receiver.stats().unique >= EVENTS) receivedAt = performance.now();
    if (sentAt !== null && (!receiver || receivedAt !== null)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  db.close();
  const seconds = (t) => (t === null ? null : (t - started) / 1000);
  return { sent: seconds(sentAt), received: seconds(receivedAt) };
}

async function delivery() {
  const server = await startServer();
  try {
    const { call } = client(server.baseUrl, server.key);
    await ensureWorkflow(call, WORKFLOW, "Benchmark webhooks", STEPS);
    const run = Date.now().toString(36);
    const topic = await seedTopic(call, run);
    console.log(`\nset up ${EVENTS} subscribers with push tokens in topic ${topic}`);

    // Alternating runs (none, one, none, one…): on a shared machine the load moves between runs.
    const times = { none: [], one: [] };
    let stats = null;
    for (let round = 0; round < FAN_OUT_ROUNDS; round++) {
      const loadNone = load();
      const none = await fanOut(server, call, topic, null);
      times.none.push(none.sent);
      console.log(
        `round ${round + 1}, no endpoint:  ${EVENTS} messages sent in ${none.sent?.toFixed(1)} s (load average ${loadNone} before)`,
      );

      const receiver = await startReceiver();
      const created = await call("POST", "/v1/webhook-endpoints", { url: receiver.url, events: ["message.sent"] });
      if (created.status !== 201) throw new Error(`creating the endpoint answered ${created.status}`);
      receiver.setSecret(created.body.secret);
      const loadOne = load();
      const one = await fanOut(server, call, topic, receiver);
      await new Promise((r) => setTimeout(r, 2000));
      stats = receiver.stats();
      await receiver.close();
      await call("DELETE", `/v1/webhook-endpoints/${created.body.id}`);
      times.one.push(one.sent);
      console.log(
        `round ${round + 1}, one endpoint: ${EVENTS} messages sent in ${one.sent?.toFixed(1)} s (load average ${loadOne} before)`,
      );
      console.log(
        `               ${stats.unique} message.sent events received and verified in ${one.received?.toFixed(1)} s from the trigger: ${one.received ? (EVENTS / one.received).toFixed(0) : "-"} events/s; ${stats.duplicates} duplicates, ${stats.invalid} failed verification`,
      );
      if (stats.unique !== EVENTS || stats.invalid) break;
    }
    const mean = (xs) => xs.reduce((a, b) => a + (b ?? Number.NaN), 0) / xs.length;
    console.log(
      `sends with the endpoint vs none (mean of ${times.one.length} runs each): ${(mean(times.one) / mean(times.none)).toFixed(2)} × the time`,
    );
    return stats?.unique === EVENTS && stats.invalid === 0;
  } finally {
    await server.stop();
  }
}

if (!process.argv.includes("--delivery-only")) await acceptPath();
if (!process.argv.includes("--accept-only")) {
  const ok = await delivery();
  if (!ok) process.exitCode = 1;
}
