// `npm run bench:reads`: how fast the message log answers its commonest reads when it is full.
// Starts a Clarion (bench/server.mjs) with 16 log shards, stops it, fills its shards with
// BENCH_MESSAGES messages (default 1,000,000: a delivered one-step email each, with its three
// timeline events and its provider ref) for BENCH_SUBSCRIBERS subscribers (default 10,000) spread
// over 30 days, starts it again on that state, and measures through the public API, alternating
// in rounds with GET /health:
//   GET /v1/messages?limit=50                      (no filter, newest first: every shard, merged)
//   GET /v1/messages?subscriberId=<one>&limit=50   (one subscriber: one shard)
//   GET /v1/analytics/overview over the whole span  (the analytics rollups the seeding kept: every shard, summed)
// Targets: p95 ≤ 150 ms and ≤ 50 ms (issue 32), the overview ≤ 200 ms (issue 37). BENCH_SPAN_DAYS
// (default 91, at most 91) spreads the messages over that many days before now: with today's part,
// they fall in that many whole UTC days plus one, 92 by default, the analytics' longest range.
//
// Filling: no route of Clarion writes log rows on request, and none is added for a benchmark.
// bench/reads-seeder/ is a tiny Worker named like Clarion that exports the LogShard class and
// writes through LogStore (Clarion's own placement and write path, one call per shard per batch);
// wrangler dev runs it alone on the stopped server's state folder, where the local runtime keys a
// Durable Object's storage by script name and class: the server then reads those same shards.
// The shards' SQLite files are also read directly afterwards, to check the spread over 16 shards
// and to print the log's bytes per message (rows and indexes, in pages, from SQLite's dbstat).
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { localDb, startServer } from "./server.mjs";

const TOTAL = Number(process.env.BENCH_MESSAGES ?? 1_000_000);
const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);
const SHARDS = 16;
/** Messages per seeding request: LogStore turns each into one write per shard. */
const PER_REQUEST = 4_000;
/**
 * Requests per endpoint per round, CONCURRENCY at a time. One at a time by default: the targets
 * are a reader's latency, and the local runtime runs every request and object on one thread, so
 * at 4 in flight the percentiles measured mostly the queue (50,000 messages: 440 ms p95 for a
 * page of all messages at 4, 132 ms at 1).
 */
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const ROUNDS = 2;
const LIMIT = 50;
const SPAN_DAYS = Number(process.env.BENCH_SPAN_DAYS ?? 91);
const SPAN_MS = SPAN_DAYS * 86_400_000;
const SEED_PORT = String(Number(process.env.PORT ?? 8797) + 1);
const TARGETS = { all: 150, subscriber: 50, overview: 200 };

if (!Number.isInteger(SPAN_DAYS) || SPAN_DAYS < 1 || SPAN_DAYS > 91) {
  console.error("BENCH_SPAN_DAYS must be an integer from 1 to 91.");
  process.exit(1);
}
if (!Number.isInteger(TOTAL) || TOTAL < 10_000 || !Number.isInteger(SUBSCRIBERS) || SUBSCRIBERS < 1 || SUBSCRIBERS > TOTAL) {
  console.error("BENCH_MESSAGES must be an integer of at least 10000, BENCH_SUBSCRIBERS one between 1 and BENCH_MESSAGES.");
  process.exit(1);
}
const load = () => loadavg()[0].toFixed(2);

/** Fills the stopped server's shards through the seeder Worker. */
async function seed(folder, persistTo, environmentId) {
  const child = spawn(
    "wrangler",
    [
      "dev",
      "-c",
      "bench/reads-seeder/wrangler.toml",
      "--local",
      "--ip",
      "127.0.0.1",
      "--port",
      SEED_PORT,
      "--persist-to",
      persistTo,
      "--show-interactive-dev-session=false",
      "--var",
      `LOG_SHARDS:${SHARDS}`,
    ],
    {
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
      env: {
        ...process.env,
        WRANGLER_SEND_METRICS: "false",
        WRANGLER_REGISTRY_PATH: join(folder, "seed-registry"),
        X_LOCAL_OBSERVABILITY: "false",
      },
    },
  );
  const kill = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  };
  process.once("exit", kill);
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  const url = `http://127.0.0.1:${SEED_PORT}`;
  try {
    const deadline = Date.now() + 120_000;
    while (
      !(await fetch(url).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`the seeder did not start:\n${log.slice(-2000)}`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const started = performance.now();
    const newest = Date.now() - 60_000;
    let next = 0;
    let written = 0;
    const worker = async () => {
      while (next < TOTAL) {
        const from = next;
        const count = Math.min(PER_REQUEST, TOTAL - from);
        next += count;
        const res = await fetch(url, {
          method: "POST",
          body: JSON.stringify({ environmentId, from, count, total: TOTAL, subscribers: SUBSCRIBERS, newest, spanMs: SPAN_MS }),
        });
        if (!res.ok) throw new Error(`seeding answered ${res.status}: ${(await res.text()).slice(0, 500)}`);
        written += count;
        if (written % 100_000 < PER_REQUEST) process.stdout.write(`  ${written.toLocaleString("en")} messages written\n`);
      }
    };
    // The local runtime runs every object on one thread: two requests in flight keep it busy.
    await Promise.all([worker(), worker()]);
    return (performance.now() - started) / 1000;
  } finally {
    process.removeListener("exit", kill);
    kill();
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** The shards' own SQLite files: rows per shard, and the log's bytes (pages of every table and index) per message. */
async function inspectShards(persistTo) {
  process.removeAllListeners("warning");
  const { DatabaseSync } = await import("node:sqlite");
  const folder = join(persistTo, "v3", "do", "clarion-LogShard");
  if (!existsSync(folder)) throw new Error(`no log shards in ${folder}`);
  const files = readdirSync(folder).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  const counts = [];
  const bytes = new Map();
  for (const file of files) {
    const db = new DatabaseSync(join(folder, file), { readOnly: true });
    counts.push(Number(db.prepare("SELECT count(*) AS n FROM messages").get().n));
    for (const r of db
      .prepare(
        `SELECT coalesce(s.tbl_name, d.name) AS tbl, sum(d.pgsize) AS bytes FROM dbstat d LEFT JOIN sqlite_schema s ON s.name = d.name GROUP BY tbl`,
      )
      .all())
      bytes.set(r.tbl, (bytes.get(r.tbl) ?? 0) + Number(r.bytes));
    db.close();
  }
  return { counts, bytes };
}

const percentile = (sorted, q) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];

/** SAMPLES requests, CONCURRENCY at a time: each one's latency, and the rows of each page. */
async function sample(baseUrl, headers, pathOf) {
  const latencies = [];
  const rows = [];
  let failures = 0;
  let i = 0;
  const worker = async () => {
    while (i < SAMPLES) {
      const path = pathOf(i++);
      const t = performance.now();
      const res = await fetch(`${baseUrl}${path}`, { headers });
      const body = await res.json().catch(() => null);
      latencies.push(performance.now() - t);
      if (!res.ok) failures++;
      else if (Array.isArray(body?.data)) rows.push(body.data.length);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { latencies, rows, failures };
}

function summary(runs) {
  const all = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  return {
    n: all.length,
    rps: all.length / seconds,
    p50: percentile(all, 0.5),
    p95: percentile(all, 0.95),
    p99: percentile(all, 0.99),
    failures: runs.reduce((n, r) => n + r.failures, 0),
    rows: runs.flatMap((r) => r.rows),
  };
}

console.log(
  `bench:reads: ${TOTAL.toLocaleString("en")} messages for ${SUBSCRIBERS.toLocaleString("en")} subscribers over ${SHARDS} log shards; ${ROUNDS} rounds of ${SAMPLES} requests per endpoint, ${CONCURRENCY} at a time`,
);
const vars = { LOG_SHARDS: String(SHARDS) };
const first = await startServer({ vars });
const db = await localDb(first.persistTo);
const environmentId = String(db.all("SELECT id FROM environments WHERE slug = 'bench'")[0]?.id ?? "");
db.close();
if (!environmentId) throw new Error("the benchmark server has no bench environment");
await first.stop({ keep: true });

let server;
let failed = false;
try {
  const seconds = await seed(first.folder, first.persistTo, environmentId);
  console.log(
    `filled in ${seconds.toFixed(1)} s (${Math.round(TOTAL / seconds).toLocaleString("en")} messages/s, with their events and refs)`,
  );
  const { counts, bytes } = await inspectShards(first.persistTo);
  const stored = counts.reduce((a, b) => a + b, 0);
  console.log(
    `${counts.length} shards hold ${stored.toLocaleString("en")} messages: ${Math.min(...counts).toLocaleString("en")} to ${Math.max(...counts).toLocaleString("en")} each`,
  );
  const perMessage = [...bytes].filter(([t]) => !t.startsWith("sqlite_") && !t.startsWith("_cf_"));
  console.log(
    `log bytes per message (rows and indexes in whole pages): ${perMessage.map(([t, b]) => `${t} ${(b / stored).toFixed(0)}`).join(", ")}; total ${(perMessage.reduce((n, [, b]) => n + b, 0) / stored).toFixed(0)}`,
  );
  if (counts.length !== SHARDS || stored !== TOTAL) {
    console.error(`expected ${TOTAL} messages over ${SHARDS} shards`);
    failed = true;
  }

  server = await startServer({
    vars,
    restart: { folder: first.folder, key: first.key, keys: first.keys, encryptionKey: first.encryptionKey },
  });
  const headers = { authorization: `ApiKey ${server.key}` };
  // The seeded span, whole UTC days: the longest range the analytics answer.
  const dayStart = (ms) => new Date(Math.floor(ms / 86_400_000) * 86_400_000).toISOString();
  const overviewTo = dayStart(Date.now() + 86_400_000);
  const overviewFrom = dayStart(Date.now() + 86_400_000 - (SPAN_DAYS + 1) * 86_400_000);
  const endpoints = {
    health: () => "/health",
    all: () => `/v1/messages?limit=${LIMIT}`,
    subscriber: (i) => `/v1/messages?subscriberId=reads-${(i * 7_919) % SUBSCRIBERS}&limit=${LIMIT}`,
    overview: () => `/v1/analytics/overview?granularity=day&from=${overviewFrom}&to=${overviewTo}`,
  };
  // The first read of a shard opens its SQLite file: not what a running deployment pays per request.
  for (let i = 0; i < 3; i++) await sample(server.baseUrl, headers, endpoints.all);
  const runs = { health: [], all: [], subscriber: [], overview: [] };
  const before = load();
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, pathOf] of Object.entries(endpoints)) {
      const t = performance.now();
      const r = await sample(server.baseUrl, headers, pathOf);
      runs[name].push({ ...r, seconds: (performance.now() - t) / 1000 });
    }
  const s = Object.fromEntries(Object.entries(runs).map(([name, r]) => [name, summary(r)]));
  console.log(`\nload average ${before} before, ${load()} after`);
  const ms = (x) => `${x.toFixed(1)} ms`.padStart(10);
  console.log(
    `${"".padEnd(44)} ${"req/s".padStart(7)} ${"p50".padStart(10)} ${"p95".padStart(10)} ${"p99".padStart(10)} ${"p95 ÷ /health".padStart(14)}  target p95`,
  );
  const label = {
    health: "GET /health",
    all: "GET /v1/messages?limit=50",
    subscriber: "GET /v1/messages?subscriberId=…&limit=50",
    overview: `GET /v1/analytics/overview (${SPAN_DAYS + 1} days)`,
  };
  for (const [name, r] of Object.entries(s)) {
    const target = TARGETS[name];
    const verdict = target === undefined ? "" : `≤ ${target} ms ${r.p95 <= target ? "met" : "MISSED"}`;
    console.log(
      `${label[name].padEnd(44)} ${String(Math.round(r.rps)).padStart(7)} ${ms(r.p50)} ${ms(r.p95)} ${ms(r.p99)} ${`${(r.p95 / s.health.p95).toFixed(2)}×`.padStart(14)}  ${verdict}`,
    );
    if (r.failures) {
      console.error(`  ${r.failures} of ${r.n} requests failed`);
      failed = true;
    }
    if (target !== undefined && r.p95 > target) failed = true;
  }
  // The overview must count every seeded message (the rollups the seeding's writes kept), or its time says nothing.
  const overview = await fetch(`${server.baseUrl}${endpoints.overview()}`, { headers }).then((r) => r.json());
  const counted = overview?.current?.totals?.messages;
  console.log(
    `overview counts ${counted?.toLocaleString("en")} messages over ${SPAN_DAYS + 1} days (seeded ${TOTAL.toLocaleString("en")})`,
  );
  if (counted !== TOTAL) failed = true;
  // A page shorter than the limit means the API did not read the log: the figures would say nothing about it.
  for (const name of ["all", "subscriber"]) {
    const short = s[name].rows.filter((n) => n < Math.min(LIMIT, name === "all" ? TOTAL : Math.floor(TOTAL / SUBSCRIBERS))).length;
    if (short) {
      console.error(
        `  ${label[name]}: ${short} of ${s[name].rows.length} pages were short of rows (does GET /v1/messages read the log shards?)`,
      );
      failed = true;
    }
  }
} finally {
  await (server ?? first).stop();
}
if (failed) process.exitCode = 1;
