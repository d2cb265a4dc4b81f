// `npm run chaos:webhooks` (local only): 2,000 events (subscriber.created from bulk upserts) on
// their way to one local receiver that verifies each with `standardwebhooks`; the local runtime
// is killed with SIGKILL once a quarter of them arrived, and started again on the same state.
// The local Queue broker is in memory, so every dispatch and delivery queued at the kill is gone:
// recovery is the cron's work (events never dispatched, deliveries never settled), run here at
// `/cdn-cgi/local/scheduled`. The cron takes a delivery as lost only an hour after its dispatch
// (STRANDED_AFTER_MS), so as not to send one still waiting in a backlogged Queue twice: the script
// runs it with the time it will have an hour after the kill (`time=`, the scheduled time the
// handler reads its clock from), which finds exactly the deliveries dispatched before the kill.
// Checks that every event written arrives at least once, and reports the duplicates.
import { writeFileSync } from "node:fs";
import { client, localDb, startServer } from "../bench/server.mjs";
import { startReceiver } from "../bench/webhook-receiver.mjs";

const EVENTS = Number(process.env.CHAOS_EVENTS ?? 2_000);
const KILL_AT_SHARE = Number(process.env.CHAOS_KILL_AT_SHARE ?? 0.25);
/**
 * The cron queues again a delivery dispatched longer ago than this (STRANDED_AFTER_MS in
 * src/features/events/endpoints/sweep.ts; events never dispatched: REDISPATCH_AFTER_MS, 2 minutes).
 */
const STRANDED_AFTER_MS = 60 * 60_000;
/** Between the script's cron runs: a run queues at most 1,000 deliveries. */
const SWEEP_EVERY_MS = 15_000;
/** How long recovery may take after the restart (CHAOS_TIMEOUT_S seconds, default 600) before the run fails. */
const TIMEOUT_MS = Number(process.env.CHAOS_TIMEOUT_S ?? 600) * 1000;

const receiver = await startReceiver({ delayMs: Number(process.env.CHAOS_RECEIVER_DELAY_MS ?? 20) });
const first = await startServer({ testScheduled: true });
const { call } = client(first.baseUrl, first.key);
const endpoint = await call("POST", "/v1/webhook-endpoints", { url: receiver.url, events: ["subscriber.created"] });
if (endpoint.status !== 201) throw new Error(`creating the endpoint answered ${endpoint.status}: ${JSON.stringify(endpoint.body)}`);
receiver.setSecret(endpoint.body.secret);

const run = Date.now().toString(36);
const started = performance.now();
for (let i = 0; i < EVENTS; i += 500) {
  const subscribers = Array.from({ length: Math.min(500, EVENTS - i) }, (_, j) => ({ subscriberId: `chaos-wh-${run}-${i + j}` }));
  const res = await call("POST", "/sub/bulk", { subscribers });
  if (res.status !== 200) throw new Error(`/sub/bulk answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
}
console.log(`wrote ${EVENTS} subscribers (one subscriber.created each) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
while (receiver.stats().unique < EVENTS * KILL_AT_SHARE && performance.now() - started < 120_000) {
  await new Promise((r) => setTimeout(r, 50));
}
const atKill = receiver.stats();
const killedAt = Date.now();
await first.stop({ keep: true });
console.log(
  `killed the runtime (SIGKILL) ${((performance.now() - started) / 1000).toFixed(1)} s after the first write; ${atKill.unique} events had arrived`,
);

const countEvents = async (persistTo) => {
  const db = await localDb(persistTo);
  const [row] = db.all("SELECT count(*) AS n, sum(dispatched_at IS NULL) AS undispatched FROM events WHERE type = 'subscriber.created'");
  db.close();
  return { written: Number(row.n), undispatched: Number(row.undispatched ?? 0) };
};
const atRestart = await countEvents(first.persistTo);
console.log(`events in D1 at the kill: ${atRestart.written} (${atRestart.undispatched} never dispatched)`);

const second = await startServer({
  testScheduled: true,
  restart: { folder: first.folder, key: first.key, keys: first.keys, encryptionKey: first.encryptionKey },
});
const restarted = performance.now();
let sweeps = 0;
let nextSweep = 0;
// An hour after the kill, plus a margin: what was dispatched before the kill and never settled is stranded then.
const sweepTime = killedAt + STRANDED_AFTER_MS + 5_000;
while (receiver.stats().unique < atRestart.written && performance.now() - restarted < TIMEOUT_MS) {
  if (Date.now() >= nextSweep) {
    // The local runtime's own trigger route: unlike wrangler's `/__scheduled`, it passes `time` on.
    const res = await fetch(`${second.baseUrl}/cdn-cgi/local/scheduled?cron=${encodeURIComponent("*/10 * * * *")}&time=${sweepTime}`);
    if (!res.ok) throw new Error(`/cdn-cgi/local/scheduled answered ${res.status}: ${await res.text()}`);
    sweeps++;
    nextSweep = Date.now() + SWEEP_EVERY_MS;
  }
  await new Promise((r) => setTimeout(r, 500));
}
const recovered = (performance.now() - restarted) / 1000;
// Let late retries land before counting duplicates.
await new Promise((r) => setTimeout(r, 3000));
const final = receiver.stats();
const { written } = await countEvents(second.persistTo);
if (process.env.CHAOS_LOG) writeFileSync(process.env.CHAOS_LOG, second.log());
await second.stop();
await receiver.close();

console.log(`\nafter the restart: ${final.unique} of ${written} events arrived in ${recovered.toFixed(1)} s (${sweeps} cron runs)`);
console.log(`requests: ${final.requests}; duplicates: ${final.duplicates}; failed verification: ${final.invalid}`);
const ok = written === EVENTS && final.unique === written && final.invalid === 0;
console.log(ok ? "\nOK: every event arrived at least once" : "\nFAILED");
if (!ok) process.exitCode = 1;
