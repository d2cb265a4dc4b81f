// `npm run bench:inbox-topic`: a topic of 10,000 (or INBOX_TOPIC_MEMBERS) subscribers and a
// workflow of one in_app step, on a local Clarion this script starts (bench/server.mjs), with an
// open Inbox socket for 1,000 (or INBOX_TOPIC_SOCKETS) of the members. Prints the seconds from the
// trigger until every message is `delivered` (stored) and until every open socket got its
// notification_received and counts (pushed), messages per second, and the load average.
import { client, ensureWorkflow, localDb, startServer } from "./server.mjs";
import { createSubscribers, loadAverage, openSockets, sessions, untilEvery } from "./inbox.mjs";

const MEMBERS = Number(process.env.INBOX_TOPIC_MEMBERS ?? 10_000);
const SOCKETS = Number(process.env.INBOX_TOPIC_SOCKETS ?? 1_000);
const WORKFLOW = "bench-inbox-topic";
const TIMEOUT_MS = 15 * 60_000;

if (!Number.isInteger(MEMBERS) || MEMBERS < 1 || MEMBERS > 100_000 || !Number.isInteger(SOCKETS) || SOCKETS < 0 || SOCKETS > MEMBERS) {
  console.error("INBOX_TOPIC_MEMBERS must be 1..100000 and INBOX_TOPIC_SOCKETS 0..INBOX_TOPIC_MEMBERS.");
  process.exit(1);
}

const server = await startServer();
let ok = true;
try {
  const { call } = client(server.baseUrl, server.key);
  await ensureWorkflow(call, WORKFLOW, "Benchmark inbox topic", [
    { id: "bell", type: "in_app", template: { subject: "News", body: "Hello {{ subscriber.subscriberId }}" } },
  ]);
  const run = Date.now().toString(36);
  const setUp = performance.now();
  const ids = await createSubscribers(call, `it-${run}`, MEMBERS);
  const topic = `inbox-${run}`;
  const created = await call("POST", "/v1/topics", { key: topic, name: "Benchmark inbox topic" });
  if (created.status !== 201) throw new Error(`creating the topic answered ${created.status}: ${JSON.stringify(created.body)}`);
  for (let i = 0; i < ids.length; i += 1000) {
    const res = await call("POST", `/v1/topics/${topic}/subscribers`, { subscriberIds: ids.slice(i, i + 1000) });
    if (res.status !== 200) throw new Error(`adding members answered ${res.status}: ${JSON.stringify(res.body)}`);
  }
  // Spread over the topic, so pushes go out from every delivery batch.
  const watched = ids.filter((_, i) => i % Math.max(1, Math.floor(MEMBERS / Math.max(1, SOCKETS))) === 0).slice(0, SOCKETS);
  const sockets = await openSockets(server.baseUrl, await sessions(server.baseUrl, call, watched));
  console.log(
    `\nset-up: ${MEMBERS} subscribers in topic ${topic}, ${sockets.length} Inbox sockets open (${((performance.now() - setUp) / 1000).toFixed(1)} s)`,
  );

  const started = performance.now();
  const accepted = await call("POST", "/v1/trigger", { workflow: WORKFLOW, to: { topic } });
  if (accepted.status !== 202) throw new Error(`trigger answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
  const { transactionId } = accepted.body;
  let pushedSeconds = null;
  const pushed = untilEvery(
    sockets,
    (s) => (s.events.notification_received ?? 0) >= 1 && (s.events.unread_count_changed ?? 0) >= 1,
    TIMEOUT_MS,
  ).then(() => (pushedSeconds = (performance.now() - started) / 1000));
  // Read from the server's D1 file, not its API: polling over HTTP would take the one thread
  // the local runtime delivers on.
  const db = await localDb(server.persistTo);
  const count = (sql) => Number(db.all(sql)[0].n);
  let delivered = 0;
  while (performance.now() - started < TIMEOUT_MS) {
    delivered = count(`SELECT count(*) AS n FROM messages WHERE transaction_id = '${transactionId}' AND status = 'delivered'`);
    if (delivered >= MEMBERS) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const storedSeconds = (performance.now() - started) / 1000;
  await pushed;
  const stored = count(`SELECT count(*) AS n FROM in_app_notifications WHERE transaction_id = '${transactionId}'`);
  db.close();
  const status = (await call("GET", `/v1/trigger/${transactionId}`)).body;
  const frames = sockets.reduce((n, s) => n + (s.events.notification_received ?? 0), 0);
  console.log(`members                ${MEMBERS}`);
  console.log(`trigger status         ${status?.status} (${JSON.stringify(status?.messages?.byStatus)})`);
  console.log(`stored notifications   ${stored}`);
  console.log(`all delivered in       ${storedSeconds.toFixed(2)} s (from the trigger)`);
  console.log(`messages per second    ${(delivered / storedSeconds).toFixed(1)}`);
  console.log(`all sockets pushed in  ${pushedSeconds?.toFixed(2)} s (${frames} notification_received on ${sockets.length} sockets)`);
  console.log(`load average           ${loadAverage()} (1, 5, 15 min)`);
  ok = delivered === MEMBERS && Number(stored) === MEMBERS && frames === sockets.length;
  for (const socket of sockets) socket.ws.close();
} finally {
  await server.stop();
}
if (!ok) process.exitCode = 1;
