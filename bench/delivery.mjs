// `npm run bench:delivery`: N single-recipient triggers (BENCH_N, default 1,000 then 10,000) to a
// workflow with one sandbox email step, sent as bulk calls of 100 to a Clarion this script starts
// (bench/server.mjs). Prints the time from the first trigger until all N messages are `sent`,
// the duplicate provider calls (must be 0), and the D1 statements per delivered trigger: every
// statement the Worker's fetch, queue and cron handlers sent to D1 during the run (accept path,
// delivery, webhooks), counted by the bench-only entry bench/d1-counter/worker.ts, divided by N.
import { loadavg } from "node:os";
import { client, cpuSpent, ensureWorkflow, localDb, providerCalls, startServer } from "./server.mjs";

const SIZES = process.env.BENCH_N ? [Number(process.env.BENCH_N)] : [1_000, 10_000];
const WORKFLOW = "bench-delivery";
const TIMEOUT_MS = 300_000;

if (!SIZES.every((n) => n >= 1 && n <= 20_000)) {
  console.error("BENCH_N must be between 1 and 20000.");
  process.exit(1);
}

async function runOnce(server, n) {
  const { call } = client(server.baseUrl, server.key);
  const db = await localDb(server.persistTo);
  const run = Date.now().toString(36);
  const load = loadavg()[0].toFixed(2);
  const cpuBefore = server.cpuSeconds();
  const d1Before = await server.d1Statements();
  const started = performance.now();
  for (let i = 0; i < n; i += 100) {
    const events = Array.from({ length: Math.min(100, n - i) }, (_, j) => ({
      workflow: WORKFLOW,
      transactionId: `bd-${run}-${i + j}`,
      to: { subscriberId: `bench-${run}-${i + j}`, email: `bench-${i + j}@example.com` },
    }));
    const res = await call("POST", "/v1/trigger/bulk", { events });
    if (res.status !== 202) throw new Error(`bulk trigger answered ${res.status}: ${JSON.stringify(res.body)}`);
    if (res.body.results.some((r) => r.status !== "accepted"))
      throw new Error(`an event was refused: ${JSON.stringify(res.body.results[0])}`);
  }
  const accepted = performance.now();
  let sent = 0;
  let failed = 0;
  while (performance.now() - started < TIMEOUT_MS) {
    const rows = db.all(`SELECT status, count(*) AS n FROM messages WHERE transaction_id LIKE 'bd-${run}-%' GROUP BY status`);
    sent = Number(rows.find((r) => r.status === "sent")?.n ?? 0);
    failed = Number(rows.find((r) => r.status === "failed")?.n ?? 0);
    if (sent + failed >= n) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const seconds = (performance.now() - started) / 1000;
  const cpu = cpuSpent(cpuBefore, server.cpuSeconds());
  // The consumer may still finish its last batch's bookkeeping (trigger records) after the last `sent`: let it settle.
  await new Promise((r) => setTimeout(r, 2_000));
  const d1After = await server.d1Statements();
  const d1 = d1After.statements - d1Before.statements;
  db.close();
  const calls = await providerCalls(server.persistTo, `m.transaction_id LIKE 'bd-${run}-%'`);
  console.log(`\nN = ${n} triggers (bulk calls of 100), one sandbox email step each`);
  console.log(`accepted in            ${((accepted - started) / 1000).toFixed(2)} s`);
  console.log(`all messages sent in   ${seconds.toFixed(2)} s (from the first trigger${cpu}; load average ${load} before)`);
  console.log(`messages sent          ${sent} (failed ${failed})`);
  console.log(`messages per second    ${(sent / seconds).toFixed(1)}`);
  console.log(`provider calls         ${calls.captures} for ${calls.messages} messages: duplicates ${calls.captures - calls.messages}`);
  console.log(`D1 statements          ${d1} (${(d1 / n).toFixed(3)} per delivered trigger; target <= 0.05)`);
  if (process.env.BENCH_VERBOSE)
    for (const [text, k] of Object.entries(d1After.byText)) console.log(`  ${k - (d1Before.byText[text] ?? 0)}\t${text}`);
  return sent === n && calls.captures === calls.messages;
}

const server = await startServer({ countD1: true });
let ok = true;
try {
  const { call } = client(server.baseUrl, server.key);
  await ensureWorkflow(call, WORKFLOW, "Benchmark delivery", [
    { id: "email", type: "email", template: { subject: "Hi {{ subscriber.subscriberId }}", text: "Benchmark." } },
  ]);
  for (const n of SIZES) ok = (await runOnce(server, n)) && ok;
  if (process.env.BENCH_VERBOSE)
    console.log(
      server
        .log()
        .split("\n")
        .filter((l) => l.includes("delivery_batch"))
        .join("\n"),
    );
} finally {
  await server.stop();
}
if (!ok) process.exitCode = 1;
