// `npm run bench:trigger`: the accept path against GET /health, measured alternately in one run
// on a Clarion this script starts itself (bench/server.mjs), twice: accept-only (the delivery
// consumer leaves its jobs queued) and with delivery running, after which every accepted
// trigger must be delivered. Then one bulk call of 100 events against one single trigger.
// Rate limits are on, as deployed; `--no-rate-limits` starts the server without the
// `[[ratelimits]]` bindings, to see what the limiter costs; `--accept-only` skips the second run.
// BENCH_TENANT=1: accept-only, POST /v1/trigger without a tenant and with `tenant: "bench-tenant"`
// measured alternately in the same run, and the ratio of the two (the target: within 5 %).
import { loadavg } from "node:os";
import { client, ensureBenchTrigger, LOCAL_OBSERVABILITY, localDb, loadTest, median, startServer } from "./server.mjs";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const TENANT_MODE = process.env.BENCH_TENANT === "1";
const TENANT = "bench-tenant";
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const RATE_LIMITS = !process.argv.includes("--no-rate-limits");
const MODES = process.argv.includes("--accept-only") || TENANT_MODE ? ["accept-only"] : ["accept-only", "delivery running"];
/** The machine's 1-minute load average: figures of a shared machine mean little without it. */
const load = () => loadavg()[0].toFixed(2);
/** Alternating rounds per endpoint (BENCH_ROUNDS): more rounds average out a shared machine's drift between them; the p99 is the worst round's. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WORKFLOW = "bench-trigger";

const measure = (options) => loadTest({ connections: CONNECTIONS, duration: SECONDS, ...options });

const triggerRequest = (baseUrl, headers, transactionId, extra = {}) => ({
  url: `${baseUrl}/v1/trigger`,
  method: "POST",
  headers,
  idReplacement: true,
  body: JSON.stringify({ workflow: WORKFLOW, to: "bench-subscriber", payload: { n: 1 }, transactionId, ...extra }),
});

/** Alternates POST /v1/trigger without a tenant and with one, round by round, so both see the same machine. */
async function tenantVersusNone(baseUrl, headers, run) {
  const totals = { none: [], tenant: [] };
  for (let round = 0; round < ROUNDS; round++) {
    totals.none.push(await measure(triggerRequest(baseUrl, headers, `${run}-n${round}-[<id>]`)));
    totals.tenant.push(await measure(triggerRequest(baseUrl, headers, `${run}-t${round}-[<id>]`, { tenant: TENANT })));
  }
  return { none: summed(totals.none), tenant: summed(totals.tenant) };
}

const summed = (list) => ({
  rps: list.reduce((n, r) => n + r.requests.total, 0) / (SECONDS * list.length),
  p50: Math.max(...list.map((r) => r.latency.p50)),
  p99: Math.max(...list.map((r) => r.latency.p99)),
  total: list.reduce((n, r) => n + r.requests.total, 0),
  ok: list.reduce((n, r) => n + (r["2xx"] ?? 0), 0),
  non2xx: list.reduce((n, r) => n + r.non2xx + r.errors + r.timeouts, 0),
});

/** Alternates /health and POST /v1/trigger; sums requests and takes the worse percentile of the rounds. */
async function alternate(baseUrl, headers, run) {
  const totals = { health: [], trigger: [] };
  for (let round = 0; round < ROUNDS; round++) {
    totals.health.push(await measure({ url: `${baseUrl}/health` }));
    totals.trigger.push(await measure(triggerRequest(baseUrl, headers, `${run}-${round}-[<id>]`)));
  }
  return { health: summed(totals.health), trigger: summed(totals.trigger) };
}

async function prepare(call) {
  await ensureBenchTrigger(call);
  if (TENANT_MODE) {
    const tenant = await call("POST", "/v1/tenants", { id: TENANT, name: "Bench tenant", brand: { name: "Bench" } });
    if (tenant.status !== 201 && tenant.status !== 409) throw new Error(`creating the tenant answered ${tenant.status}`);
  }
}

const row = (name, s) =>
  `${name.padEnd(22)} ${String(Math.round(s.rps)).padStart(7)} ${`${s.p50} ms`.padStart(9)} ${`${s.p99} ms`.padStart(9)} ${String(s.total).padStart(7)} ${String(s.non2xx).padStart(8)}`;
const header = `${"".padEnd(22)} ${"req/s".padStart(7)} ${"p50".padStart(9)} ${"p99".padStart(9)} ${"total".padStart(7)} ${"non-2xx".padStart(8)}`;

function report(title, r) {
  console.log(`\n${title}\n${header}\n${row("GET /health", r.health)}\n${row("POST /v1/trigger", r.trigger)}`);
  console.log(
    `throughput ratio ${(r.trigger.rps / r.health.rps).toFixed(2)} × /health, p99 ratio ${(r.trigger.p99 / r.health.p99).toFixed(2)} × /health`,
  );
}

/** Sequential single triggers and bulk calls of 100: p50 of each. */
async function bulkVersusSingle(call) {
  const time = async (fn) => {
    const t = performance.now();
    await fn();
    return performance.now() - t;
  };
  const singles = [];
  const bulks = [];
  for (let i = 0; i < 20; i++) {
    singles.push(await time(() => call("POST", "/v1/trigger", { workflow: WORKFLOW, to: "bench-subscriber" })));
    const events = Array.from({ length: 100 }, () => ({ workflow: WORKFLOW, to: "bench-subscriber" }));
    bulks.push(
      await time(async () => {
        const res = await call("POST", "/v1/trigger/bulk", { events });
        if (res.status !== 202) throw new Error(`bulk answered ${res.status}`);
      }),
    );
  }
  return { single: median(singles), bulk: median(bulks) };
}

async function delivered(persistTo, expected, timeoutMs = 180_000) {
  const db = await localDb(persistTo);
  const started = performance.now();
  for (;;) {
    const [r] = db.all(`SELECT count(*) AS n FROM messages WHERE workflow_key = '${WORKFLOW}' AND status = 'sent'`);
    const n = Number(r.n);
    if (n >= expected || performance.now() - started > timeoutMs) {
      db.close();
      return { n, seconds: (performance.now() - started) / 1000 };
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
}

console.log(
  `${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS} s per endpoint, rate limits ${RATE_LIMITS ? "on" : "off (no [[ratelimits]] bindings)"}, wrangler's local trace store ${LOCAL_OBSERVABILITY ? "on" : "off (BENCH_LOCAL_OBSERVABILITY=1 keeps it)"}`,
);
let failed = false;
for (const mode of MODES) {
  const server = await startServer({ acceptOnly: mode === "accept-only", rateLimits: RATE_LIMITS });
  try {
    const { call, headers } = client(server.baseUrl, server.key);
    await prepare(call);
    const before = load();
    if (TENANT_MODE) {
      const t = await tenantVersusNone(server.baseUrl, headers, `t${Date.now().toString(36)}`);
      console.log(
        `\naccept-only, without and with a tenant, rate limits ${RATE_LIMITS ? "on" : "off"} (load average ${before} before, ${load()} after):\n${header}\n${row("no tenant", t.none)}\n${row(`tenant: "${TENANT}"`, t.tenant)}`,
      );
      console.log(
        `tenant / no tenant: throughput ${(t.tenant.rps / t.none.rps).toFixed(3)}, p50 ${(t.tenant.p50 / t.none.p50).toFixed(3)}, p99 ${(t.tenant.p99 / t.none.p99).toFixed(3)} (target: throughput ≥ 0.95)`,
      );
      if (t.none.non2xx || t.tenant.non2xx) failed = true;
      continue;
    }
    const r = await alternate(server.baseUrl, headers, `${mode === "accept-only" ? "a" : "d"}${Date.now().toString(36)}`);
    report(`${mode}, rate limits ${RATE_LIMITS ? "on" : "off"} (load average ${before} before, ${load()} after):`, r);
    if (r.trigger.non2xx || r.health.non2xx) failed = true;
    if (mode === "delivery running") {
      const { single, bulk } = await bulkVersusSingle(call);
      console.log(`bulk of 100 p50 ${bulk.toFixed(0)} ms, single trigger p50 ${single.toFixed(0)} ms: ratio ${(bulk / single).toFixed(2)}`);
      const expected = r.trigger.ok + 20 + 20 * 100;
      const d = await delivered(server.persistTo, expected);
      console.log(
        `delivered afterwards: ${d.n} messages sent for the ${expected} triggers counted as accepted (more: requests in flight when a round ended), ${d.seconds.toFixed(1)} s after the load ended`,
      );
      if (d.n < expected) failed = true;
    }
  } finally {
    await server.stop();
  }
}
if (failed) process.exitCode = 1;
