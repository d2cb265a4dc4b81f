// `npm run bench:storage`: what the message log costs D1 in bytes. Starts a Clarion
// (bench/server.mjs), sends N single-recipient triggers (BENCH_N, default 2,000) to a one-step
// workflow (a sandbox email) and N to a three-step one (in-app, email, SMS), waits until every
// message is final, and prints how many bytes each trigger left in the local D1 file, table by
// table (the table's rows and its indexes, in whole pages, from SQLite's dbstat), and the
// history one 10 GB database holds at 10 to 10,000 triggers/s. The sandbox's captures (what a
// real provider would have received) are shown apart and left out of the totals: a deployment
// with real providers writes none. Since 0.13 they live in the log shards with their messages
// (`sandbox_captures`), so D1 shows none; the log's table is left out of its total likewise.
//
// Since v4 the message log (messages, timelines, trigger records) lives in the log shards (Durable
// Object SQLite): their files are read too (read-only, as bench/reads.mjs does) to wait for the
// deliveries and to print the log's own bytes per trigger beside D1's.
//
// The recipients are a fixed pool of subscribers that exist before the measurement, so the
// figures are the log's growth, not new profiles'.
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { client, ensureWorkflow, localDb, startServer } from "./server.mjs";

const N = Number(process.env.BENCH_N ?? 2_000);
const POOL = 100;
const TIMEOUT_MS = 600_000;
/** D1's size limit per database (Workers Paid) [CF]. */
const D1_BYTES = 10e9;
const RATES = [10, 100, 1_000, 10_000];
const DAY = 86_400;

if (!Number.isInteger(N) || N < 100 || N > 20_000) {
  console.error("BENCH_N must be an integer between 100 and 20000.");
  process.exit(1);
}

const WORKFLOWS = {
  "one-step": [
    { id: "email", type: "email", template: { subject: "Order {{ payload.order }}", text: "Your order {{ payload.order }} shipped." } },
  ],
  "three-step": [
    { id: "inbox", type: "in_app", template: { subject: "Order {{ payload.order }}", body: "Your order {{ payload.order }} shipped." } },
    { id: "email", type: "email", template: { subject: "Order {{ payload.order }}", text: "Your order {{ payload.order }} shipped." } },
    { id: "sms", type: "sms", template: { body: "Order {{ payload.order }} shipped." } },
  ],
};

/** Bytes in whole pages per table, its indexes counted with it (dbstat names each b-tree; sqlite_schema says whose). */
function pagesByTable(persistTo) {
  return localDb(persistTo, { log: false }).then((db) => {
    const rows = db.all(
      `SELECT coalesce(s.tbl_name, d.name) AS tbl, sum(d.pgsize) AS bytes
         FROM dbstat d LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY tbl`,
    );
    db.close();
    return new Map(rows.map((r) => [r.tbl, Number(r.bytes)]));
  });
}

/** The log shards' SQLite files, each opened read-only (a busy page is read again). */
async function logShards(persistTo) {
  process.removeAllListeners("warning");
  const { DatabaseSync } = await import("node:sqlite");
  const folder = join(persistTo, "v3", "do", "clarion-LogShard");
  const files = existsSync(folder) ? readdirSync(folder).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite") : [];
  return files.map((file) => {
    const db = new DatabaseSync(join(folder, file), { readOnly: true });
    db.exec("PRAGMA busy_timeout = 5000");
    return {
      all: (sql) => {
        for (let attempt = 0; ; attempt++) {
          try {
            return db.prepare(sql).all();
          } catch (error) {
            // A shard made since the last look may not have its tables yet.
            if (/no such table/i.test(String(error))) return [];
            if (attempt >= 20 || !/BUSY|locked/i.test(String(error))) throw error;
          }
        }
      },
      close: () => db.close(),
    };
  });
}

/** The log's bytes per table over every shard, in whole pages with its indexes. */
async function logPagesByTable(persistTo) {
  const bytes = new Map();
  for (const db of await logShards(persistTo)) {
    for (const r of db.all(
      `SELECT coalesce(s.tbl_name, d.name) AS tbl, sum(d.pgsize) AS bytes FROM dbstat d LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY tbl`,
    ))
      bytes.set(r.tbl, (bytes.get(r.tbl) ?? 0) + Number(r.bytes));
    db.close();
  }
  return bytes;
}

/** Rows of `sql` (one count each) summed over D1's legacy tables and every log shard. */
async function countEverywhere(persistTo, d1Sql, logSql) {
  const d1 = await localDb(persistTo, { log: false });
  let n = Number(d1.all(d1Sql)[0].n);
  d1.close();
  for (const db of await logShards(persistTo)) {
    n += Number(db.all(logSql)[0]?.n ?? 0);
    db.close();
  }
  return n;
}

async function waitFinal(persistTo, prefix, expected, triggers) {
  const started = Date.now();
  for (;;) {
    const final = await countEverywhere(
      persistTo,
      `SELECT count(*) AS n FROM messages WHERE transaction_id LIKE '${prefix}%' AND status NOT IN ('queued', 'sending')`,
      `SELECT count(*) AS n FROM messages WHERE tx LIKE '${prefix}%' AND status NOT IN ('queued', 'sending')`,
    );
    // The trigger's record is finished after its messages: wait for that write too.
    const finished = await countEverywhere(
      persistTo,
      `SELECT count(*) AS n FROM triggers WHERE transaction_id LIKE '${prefix}%' AND status NOT IN ('accepted', 'processing')`,
      `SELECT count(*) AS n FROM triggers WHERE tx LIKE '${prefix}%' AND status NOT IN ('accepted', 'processing')`,
    );
    if (final >= expected && finished >= triggers) return;
    if (Date.now() - started > TIMEOUT_MS) throw new Error(`only ${final} of ${expected} messages final after ${TIMEOUT_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

async function send(call, workflow, prefix, count) {
  for (let i = 0; i < count; i += 100) {
    const events = Array.from({ length: Math.min(100, count - i) }, (_, j) => {
      const k = (i + j) % POOL;
      return {
        workflow,
        transactionId: `${prefix}${i + j}`,
        to: { subscriberId: `storage-${k}`, email: `storage-${k}@example.com`, phone: `+1555010${String(k).padStart(4, "0")}` },
        payload: { order: `A-${100_000 + i + j}` },
      };
    });
    const res = await call("POST", "/v1/trigger/bulk", { events });
    if (res.status !== 202) throw new Error(`bulk trigger answered ${res.status}: ${JSON.stringify(res.body)}`);
    const refused = res.body.results.find((r) => r.status !== "accepted");
    if (refused) throw new Error(`an event was refused: ${JSON.stringify(refused)}`);
  }
}

const pad = (s, n) => String(s).padEnd(n);
const num = (n) => Math.round(n).toLocaleString("en-US");

const server = await startServer({ port: process.env.PORT ?? "8799" });
const results = {};
const logResults = {};
try {
  const { call } = client(server.baseUrl, server.key);
  const run = Date.now().toString(36);
  for (const [name, steps] of Object.entries(WORKFLOWS)) {
    const key = `bench-storage-${name}`;
    await ensureWorkflow(call, key, `Storage ${name}`, steps);
    // The pool's profiles, and a first page of each table, exist before the measurement.
    await send(call, key, `warm-${name}-${run}-`, POOL);
    await waitFinal(server.persistTo, `warm-${name}-${run}-`, POOL * steps.length, POOL);
    const before = await pagesByTable(server.persistTo);
    const logBefore = await logPagesByTable(server.persistTo);
    await send(call, key, `st-${name}-${run}-`, N);
    await waitFinal(server.persistTo, `st-${name}-${run}-`, N * steps.length, N);
    const after = await pagesByTable(server.persistTo);
    const logAfter = await logPagesByTable(server.persistTo);
    const grown = (a, b) =>
      [...a]
        .map(([table, bytes]) => [table, (bytes - (b.get(table) ?? 0)) / N])
        .filter(([, n]) => n !== 0)
        .sort(([, x], [, y]) => y - x);
    results[name] = grown(after, before);
    logResults[name] = grown(logAfter, logBefore);
  }
} finally {
  await server.stop();
}

const CAPTURES = "sandbox_messages";
const LOG_CAPTURES = "sandbox_captures";
const totals = {};
for (const [name, perTable] of Object.entries(results)) {
  console.log(`\n${name} workflow (${WORKFLOWS[name].map((s) => s.type).join(", ")}): D1 bytes per delivered trigger, ${num(N)} triggers`);
  let total = 0;
  for (const [table, bytes] of perTable) {
    const left = table === CAPTURES;
    if (!left) total += bytes;
    console.log(`  ${pad(table, 28)} ${num(bytes).padStart(7)}${left ? "  (sandbox captures: left out)" : ""}`);
  }
  console.log(`  ${pad("total", 28)} ${num(total).padStart(7)}`);
  totals[name] = total;
  console.log(`${name} workflow: the log's bytes per delivered trigger (all shards)`);
  let logTotal = 0;
  for (const [table, bytes] of logResults[name]) {
    const left = table === LOG_CAPTURES;
    if (!left) logTotal += bytes;
    console.log(`  ${pad(table, 28)} ${num(bytes).padStart(7)}${left ? "  (sandbox captures: left out)" : ""}`);
  }
  console.log(`  ${pad("total", 28)} ${num(logTotal).padStart(7)}`);
}

console.log(`\nHistory one D1 database (${D1_BYTES / 1e9} GB) holds, and the bytes 30 days take:`);
console.log(
  `  ${pad("triggers/s", 12)}${Object.keys(totals)
    .map((n) => `${pad(`${n}: held`, 24)}${pad(`${n}: 30 days`, 22)}`)
    .join("")}`,
);
for (const rate of RATES) {
  const cells = Object.values(totals).map((bytes) => {
    const days = D1_BYTES / (rate * DAY * bytes);
    const month = (rate * DAY * 30 * bytes) / 1e9;
    const held =
      days >= 10 ? `${num(days)} days` : days >= 1 ? `${days.toFixed(1)} days` : `${(days * 24).toFixed(days * 24 >= 1 ? 1 : 2)} hours`;
    return `${pad(held, 24)}${pad(`${num(month)} GB`, 22)}`;
  });
  console.log(`  ${pad(num(rate), 12)}${cells.join("")}`);
}
console.log(`\nbench:model input: --d1BytesPerTrigger=${Math.round(totals["one-step"])}`);
