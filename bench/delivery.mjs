// `npm run bench:delivery`: N single-recipient triggers (BENCH_N, default 1,000 then 10,000) to a
// workflow with one sandbox email step, sent as bulk calls of 100 to a Clarion this script starts
// (bench/server.mjs). Prints the time from the first trigger until all N messages are `sent` (to
// the last message's own status time, read from the log shards),
// the duplicate provider calls (must be 0), and the D1 statements per delivered trigger: every
// statement the Worker's fetch, queue and cron handlers sent to D1 during the run (accept path,
// delivery, webhooks), counted by the bench-only entry bench/d1-counter/worker.ts, divided by N.
//
// BENCH_CONTENT=1 (or `--content`) measures what layouts, partials and translations cost: in the same
// run, for each size, N triggers to a plain workflow (its HTML inline, no layout) and then N to one
// whose email is wrapped in a layout that renders two partials, with every text a `t` key looked up
// for the subscriber's locale (`de`, translations in `de` and the default `en`). Both emails carry
// the same words. Prints both times and the ratio content / plain (the issue's bound: at most 1.15).
//
// BENCH_BRANCH=1 (or `--branch`) measures what a branch costs: in the same run, for each size, N
// triggers to the one-email workflow and then N to one whose email sits behind a two-path branch
// (a payload condition picks the path; half the triggers take each, both paths end in the same
// email). Prints both times and the ratio branch / plain (the issue's bound: at most 1.10).
//
// `--singles` sends the N triggers as single POST /v1/trigger calls, 50 at a time (bench:trigger's
// load, one recipient each), instead of bulk calls: the path where each trigger's ledger calls
// carry one trigger. Compare runs by the CPU per trigger it prints, which a shared machine moves less than the time.
//
// BENCH_ROLLUPS=1 (or `--rollups`) measures what the analytics rollups cost: for each size, twice in
// turn, N triggers to a Clarion started with the rollups off (ANALYTICS_ROLLUPS=off) and N to one
// with them on (each a fresh server, the same state folder layout). Prints the best time of each
// and the ratio on / off (the issue's bound: at most 1.05).
import { loadavg } from "node:os";
import { client, cpuSpent, ensureWorkflow, localDb, logProgress, providerCalls, startServer } from "./server.mjs";

// BENCH_N=1000 for one size; BENCH_N=1000,1000 runs it twice on the same server, the second on
// warm objects and a compiled isolate (a deployment that has been running), the first from cold.
const SIZES = process.env.BENCH_N ? process.env.BENCH_N.split(",").map(Number) : [1_000, 10_000];
const WORKFLOW = "bench-delivery";
const TIMEOUT_MS = 300_000;
const CONTENT = process.env.BENCH_CONTENT === "1" || process.argv.includes("--content");
const PLAIN = "bench-delivery-plain";
const FRAMED = "bench-delivery-content";
const BRANCH = process.env.BENCH_BRANCH === "1" || process.argv.includes("--branch");
const ROLLUPS = process.env.BENCH_ROLLUPS === "1" || process.argv.includes("--rollups");
const BRANCHED = "bench-delivery-branch";
const SINGLES = process.argv.includes("--singles");
/** Single calls in flight at once with `--singles` (bench:trigger's connections). */
const SINGLES_IN_FLIGHT = 50;
const BENCH_EMAIL = (id) => ({ id, type: "email", template: { subject: "Hi {{ subscriber.subscriberId }}", text: "Benchmark." } });
const BRANCH_STEPS = [
  {
    id: "route",
    type: "branch",
    paths: [
      { id: "even", if: { field: "payload.n", op: "in", value: [0, 2, 4, 6, 8] }, steps: [BENCH_EMAIL("email-even")] },
      { id: "odd", if: { field: "payload.n", op: "in", value: [1, 3, 5, 7, 9] }, steps: [BENCH_EMAIL("email-odd")] },
    ],
  },
];

if (!SIZES.every((n) => n >= 1 && n <= 20_000)) {
  console.error("BENCH_N must be between 1 and 20000.");
  process.exit(1);
}

async function runOnce(server, n, workflow = WORKFLOW, recipient = {}) {
  const { call } = client(server.baseUrl, server.key);
  const db = await localDb(server.persistTo);
  const run = Date.now().toString(36);
  const load = loadavg()[0].toFixed(2);
  const cpuBefore = server.cpuSeconds();
  const d1Before = await server.d1Statements();
  const logBefore = server.log().length;
  const started = performance.now();
  const startedAt = Date.now();
  const event = (i) => ({
    workflow,
    transactionId: `bd-${run}-${i}`,
    payload: { n: i % 10 },
    to: { subscriberId: `bench-${run}-${i}`, email: `bench-${i}@example.com`, ...recipient },
  });
  if (SINGLES) {
    let next = 0;
    const lane = async () => {
      while (next < n) {
        const res = await call("POST", "/v1/trigger", event(next++));
        if (res.status !== 201 && res.status !== 202) throw new Error(`trigger answered ${res.status}: ${JSON.stringify(res.body)}`);
      }
    };
    await Promise.all(Array.from({ length: SINGLES_IN_FLIGHT }, lane));
  } else
    for (let i = 0; i < n; i += 100) {
      const events = Array.from({ length: Math.min(100, n - i) }, (_, j) => event(i + j));
      const res = await call("POST", "/v1/trigger/bulk", { events });
      if (res.status !== 202) throw new Error(`bulk trigger answered ${res.status}: ${JSON.stringify(res.body)}`);
      if (res.body.results.some((r) => r.status !== "accepted"))
        throw new Error(`an event was refused: ${JSON.stringify(res.body.results[0])}`);
    }
  const accepted = performance.now();
  let progress = { sent: 0, failed: 0, lastAt: 0 };
  while (performance.now() - started < TIMEOUT_MS) {
    progress = await logProgress(server.persistTo, `bd-${run}-`);
    if (progress.sent + progress.failed >= n) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const { sent, failed } = progress;
  // The last message's own time, not when a poll saw it: a poll comes up to 200 ms late.
  const seconds = sent + failed >= n ? (progress.lastAt - startedAt) / 1000 : (performance.now() - started) / 1000;
  const polled = (performance.now() - started) / 1000;
  const cpuAfter = server.cpuSeconds();
  const cpu = cpuSpent(cpuBefore, cpuAfter);
  // The consumer may still finish its last batch's bookkeeping (trigger records) after the last `sent`: let it settle.
  await new Promise((r) => setTimeout(r, 2_000));
  const d1After = await server.d1Statements();
  const batches = batchCosts(server.log().slice(logBefore));
  const d1 = d1After.statements - d1Before.statements;
  // What one email said: the content run must show the German texts, the header and the footer partial.
  const sample = db.all(`SELECT subject, content FROM messages WHERE transaction_id LIKE 'bd-${run}-%' AND status = 'sent' LIMIT 1`)[0];
  db.close();
  const calls = await providerCalls(server.persistTo, `m.transaction_id LIKE 'bd-${run}-%'`);
  console.log(
    `\nN = ${n} triggers (${SINGLES ? `single calls, ${SINGLES_IN_FLIGHT} at a time` : "bulk calls of 100"}) to ${workflow}, one sandbox email step each`,
  );
  console.log(`accepted in            ${((accepted - started) / 1000).toFixed(2)} s`);
  console.log(
    `all messages sent in   ${seconds.toFixed(2)} s (from the first trigger to the last message's status${cpu}; load average ${load} before)`,
  );
  console.log(`  seen by the poll in  ${polled.toFixed(2)} s (every 200 ms)`);
  console.log(`messages sent          ${sent} (failed ${failed})`);
  if (cpuBefore !== null && cpuAfter !== null)
    console.log(
      `CPU per trigger        ${(((cpuAfter - cpuBefore) * 1000) / n).toFixed(2)} ms (accept and delivery, the local runtime's processes)`,
    );
  console.log(`messages per second    ${(sent / seconds).toFixed(1)}`);
  if (sample)
    console.log(
      `sample email           "${sample.subject}"; ${String(sample.content).includes("Gesendet von Acme") ? "footer rendered in de" : "no German footer"}`,
    );
  console.log(`provider calls         ${calls.captures} for ${calls.messages} messages: duplicates ${calls.captures - calls.messages}`);
  // The sandbox provider stands for the provider's API: its own record of each send (for the sandbox inbox) is not Clarion's data path.
  // Since 0.13 it is in the log shards with its message, so this counts only captures of messages D1 recorded before (none here).
  const sandbox = Object.entries(d1After.byText)
    .filter(([text]) => text.includes('"sandbox_messages"'))
    .reduce((sum, [text, k]) => sum + k - (d1Before.byText[text] ?? 0), 0);
  console.log(
    `D1 statements          ${d1} (${(d1 / n).toFixed(3)} per delivered trigger), of which the sandbox provider's records ${sandbox}`,
  );
  console.log(`  without the sandbox  ${d1 - sandbox} (${((d1 - sandbox) / n).toFixed(3)} per delivered trigger; target <= 0.05)`);
  // The consumer's own counts (its `delivery_batch` lines; logged for batches of 20 jobs or more, so a small run may have none).
  if (batches.count)
    console.log(
      `object calls           ${batches.logCalls} message writes to log shards (${(batches.logCalls / batches.count).toFixed(1)} a batch), ${batches.objectCalls} ledger calls, in ${batches.count} consumer batches that started ${batches.triggers} triggers`,
    );
  if (Object.keys(batches.byQueue).length > 1)
    console.log(
      `  triggers by queue    ${Object.entries(batches.byQueue)
        .sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true }))
        .map(([queue, k]) => `${queue} ${k}`)
        .join(", ")}`,
    );
  if (process.env.BENCH_VERBOSE)
    for (const [text, k] of Object.entries(d1After.byText)) console.log(`  ${k - (d1Before.byText[text] ?? 0)}\t${text}`);
  return { ok: sent === n && calls.captures === calls.messages, seconds };
}

/**
 * The consumer's `delivery_batch` lines in this part of the server's output (src/delivery/consumer.ts),
 * summed: its message writes to log shards (one call per shard a phase writes, and the outbox
 * settles: `costs.logCalls`), its ledger calls, and the triggers it started.
 */
function batchCosts(output) {
  const sum = { count: 0, triggers: 0, logCalls: 0, objectCalls: 0, byQueue: /** @type {Record<string, number>} */ ({}) };
  for (const line of output.split("\n")) {
    const at = line.indexOf('{"level"');
    if (at < 0 || !line.includes('"delivery_batch"')) continue;
    const batch = JSON.parse(line.slice(at));
    sum.count++;
    sum.triggers += batch.triggers;
    sum.logCalls += batch.logCalls;
    sum.objectCalls += batch.objectCalls;
    sum.byQueue[batch.queue] = (sum.byQueue[batch.queue] ?? 0) + batch.triggers;
  }
  return sum;
}

// The same words either way: inline in the plain step; in the content one from a layout, two partials and `t` keys.
const TEXTS = {
  en: { mail: { subject: "Hi {{ name }}", title: "Your order shipped", body: "It left our warehouse today.", footer: "Sent by Acme" } },
  de: {
    mail: {
      subject: "Hallo {{ name }}",
      title: "Deine Bestellung ist unterwegs",
      body: "Sie hat heute unser Lager verlassen.",
      footer: "Gesendet von Acme",
    },
  },
};
const de = TEXTS.de.mail;
const PLAIN_STEPS = [
  {
    id: "email",
    type: "email",
    layout: null,
    template: {
      subject: `Hallo {{ subscriber.subscriberId }}`,
      html: `<html><body><header><strong>Acme</strong> · Bestellungen</header><h1>${de.title}</h1><p>${de.body}</p><footer><p>${de.footer}</p><p>Acme, 1 Main St</p></footer></body></html>`,
    },
  },
];
const FRAMED_STEPS = [
  {
    id: "email",
    type: "email",
    layout: "bench-frame",
    template: {
      subject: '{{ "mail.subject" | t: name: subscriber.subscriberId }}',
      html: '<h1>{{ "mail.title" | t }}</h1><p>{{ "mail.body" | t }}</p>',
    },
  },
];

/** The layout, its two partials and the translations the content workflow reads (never the environment's default layout). */
async function ensureContent(call) {
  const must = async (method, path, body, ok) => {
    const res = await call(method, path, body);
    if (!ok.includes(res.status)) throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
  };
  for (const [locale, keys] of Object.entries(TEXTS)) await must("PUT", `/v1/translations/${locale}`, { keys }, [200]);
  await must(
    "POST",
    "/v1/partials",
    { key: "bench-header", name: "Header", type: "html", content: "<header><strong>{{ label }}</strong> · Bestellungen</header>" },
    [201, 409],
  );
  await must(
    "POST",
    "/v1/partials",
    { key: "bench-footer", name: "Footer", type: "html", content: '<footer><p>{{ "mail.footer" | t }}</p><p>{{ address }}</p></footer>' },
    [201, 409],
  );
  await must(
    "POST",
    "/v1/layouts",
    {
      key: "bench-frame",
      name: "Benchmark frame",
      html: '<html><body>{% render "bench-header", label: "Acme" %}{{ content }}{% render "bench-footer", address: "Acme, 1 Main St" %}</body></html>',
    },
    [201, 409],
  );
}

/** One run of N on a fresh server with the rollups on or off. */
async function rollupRun(n, on) {
  const fresh = await startServer({ countD1: true, ...(on ? {} : { vars: { ANALYTICS_ROLLUPS: "off" } }) });
  try {
    const { call } = client(fresh.baseUrl, fresh.key);
    await ensureWorkflow(call, WORKFLOW, "Benchmark delivery", [BENCH_EMAIL("email")]);
    console.log(`\n--- rollups ${on ? "on" : "off"} ---`);
    return await runOnce(fresh, n);
  } finally {
    await fresh.stop();
  }
}

if (ROLLUPS) {
  let ok = true;
  for (const n of SIZES) {
    const times = { on: [], off: [] };
    for (let round = 0; round < 2; round++)
      for (const on of [false, true]) {
        const run = await rollupRun(n, on);
        ok = run.ok && ok;
        times[on ? "on" : "off"].push(run.seconds);
      }
    const best = (list) => Math.min(...list);
    console.log(
      `\nN = ${n}: rollups off ${times.off.map((t) => t.toFixed(2)).join(" / ")} s, on ${times.on.map((t) => t.toFixed(2)).join(" / ")} s`,
    );
    console.log(`ratio on / off (best)  ${(best(times.on) / best(times.off)).toFixed(3)} (bound: 1.05)`);
  }
  if (!ok) process.exitCode = 1;
  process.exit();
}

const server = await startServer({ countD1: true });
let ok = true;
try {
  const { call } = client(server.baseUrl, server.key);
  await ensureWorkflow(call, WORKFLOW, "Benchmark delivery", [
    { id: "email", type: "email", template: { subject: "Hi {{ subscriber.subscriberId }}", text: "Benchmark." } },
  ]);
  if (CONTENT) {
    await ensureContent(call);
    await ensureWorkflow(call, PLAIN, "Benchmark delivery, plain HTML", PLAIN_STEPS);
    await ensureWorkflow(call, FRAMED, "Benchmark delivery, layout + partials + t", FRAMED_STEPS);
    for (const n of SIZES) {
      const plain = await runOnce(server, n, PLAIN, { locale: "de" });
      const framed = await runOnce(server, n, FRAMED, { locale: "de" });
      ok = plain.ok && framed.ok && ok;
      console.log(`\nN = ${n}: plain ${plain.seconds.toFixed(2)} s, layout + 2 partials + t ${framed.seconds.toFixed(2)} s`);
      console.log(`ratio content / plain  ${(framed.seconds / plain.seconds).toFixed(3)} (bound: 1.15)`);
    }
  } else if (BRANCH) {
    await ensureWorkflow(call, BRANCHED, "Benchmark delivery, two-path branch", BRANCH_STEPS);
    for (const n of SIZES) {
      const plain = await runOnce(server, n);
      const branched = await runOnce(server, n, BRANCHED);
      ok = plain.ok && branched.ok && ok;
      console.log(`\nN = ${n}: plain ${plain.seconds.toFixed(2)} s, two-path branch ${branched.seconds.toFixed(2)} s`);
      console.log(`ratio branch / plain   ${(branched.seconds / plain.seconds).toFixed(3)} (bound: 1.10)`);
    }
  } else for (const n of SIZES) ok = (await runOnce(server, n)).ok && ok;
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
