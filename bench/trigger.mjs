// `npm run bench:trigger`: triggers per second and latency at 50 connections against a running
// local Clarion (`npm start`), next to the same figures for GET /health measured in the same run.
import { readFileSync } from "node:fs";
import autocannon from "autocannon";

const BASE_URL = process.env.CLARION_URL ?? "http://127.0.0.1:8787";
const CONNECTIONS = 50;
const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WORKFLOW = "bench-trigger";
const SUBSCRIBER = "bench-subscriber";

// The benchmark is for the local server only: never point sustained load at a deployment.
const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);
if (!LOOPBACK.has(new URL(BASE_URL).hostname)) {
  console.error(`CLARION_URL must point at the local server (127.0.0.1), not ${BASE_URL}.`);
  process.exit(1);
}
if (!(DURATION_SECONDS > 0 && DURATION_SECONDS <= 60)) {
  console.error("BENCH_SECONDS must be between 1 and 60.");
  process.exit(1);
}

function apiKey() {
  if (process.env.CLARION_KEY) return process.env.CLARION_KEY;
  try {
    return JSON.parse(readFileSync(".clarion/keys.json", "utf8")).development;
  } catch {
    console.error("No API key: set CLARION_KEY or run `npm start` once to create .clarion/keys.json.");
    process.exit(1);
  }
}

const headers = { authorization: `ApiKey ${apiKey()}`, "content-type": "application/json" };

async function call(method, path, body) {
  const res = await fetch(`${BASE_URL}${path}`, { method, headers, body: body && JSON.stringify(body) });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function prepare() {
  const health = await fetch(`${BASE_URL}/health`).catch(() => null);
  if (!health?.ok) {
    console.error(`Clarion does not answer at ${BASE_URL}/health: start it with \`npm start\`.`);
    process.exit(1);
  }
  const existing = await call("GET", `/v1/workflows/${WORKFLOW}`);
  if (existing.status === 404) {
    const created = await call("POST", "/v1/workflows", {
      key: WORKFLOW,
      name: "Benchmark trigger",
      steps: [{ id: "email", type: "email", template: { subject: "Hello {{ subscriber.firstName }}", text: "Benchmark." } }],
    });
    if (created.status !== 201) throw new Error(`creating the workflow answered ${created.status}: ${JSON.stringify(created.body)}`);
  } else if (existing.status !== 200) {
    throw new Error(`reading the workflow answered ${existing.status}: ${JSON.stringify(existing.body)}`);
  }
  const sub = await call("POST", "/sub", { subscriberId: SUBSCRIBER, email: "bench@example.com", firstName: "Bench" });
  if (sub.status !== 200 && sub.status !== 201) throw new Error(`upserting the subscriber answered ${sub.status}`);
}

function measure(title, options) {
  return new Promise((resolve, reject) => {
    autocannon({ title, connections: CONNECTIONS, duration: DURATION_SECONDS, ...options }, (error, result) =>
      error ? reject(error) : resolve(result),
    );
  });
}

const summary = (r) => ({
  requestsPerSecond: r.requests.average,
  p50: r.latency.p50,
  p99: r.latency.p99,
  total: r.requests.total,
  non2xx: r.non2xx,
  errors: r.errors + r.timeouts,
  statusCodes: Object.fromEntries(Object.entries(r.statusCodeStats).map(([code, { count }]) => [code, count])),
});

await prepare();
console.log(`Clarion at ${BASE_URL}: ${CONNECTIONS} connections, ${DURATION_SECONDS} s per endpoint\n`);

const health = summary(await measure("GET /health", { url: `${BASE_URL}/health` }));
// Every trigger gets its own transactionId (autocannon fills in [<id>]), so each one is a new
// trigger with its own Durable Object, not an idempotent replay.
const trigger = summary(
  await measure("POST /v1/trigger", {
    url: `${BASE_URL}/v1/trigger`,
    method: "POST",
    headers,
    idReplacement: true,
    body: JSON.stringify({ workflow: WORKFLOW, to: SUBSCRIBER, payload: { n: 1 }, transactionId: "bench-[<id>]" }),
  }),
);

const row = (name, s) =>
  [name.padEnd(18), String(Math.round(s.requestsPerSecond)).padStart(8), `${s.p50} ms`.padStart(9), `${s.p99} ms`.padStart(9),
    String(s.total).padStart(8), String(s.non2xx).padStart(7), String(s.errors).padStart(7), `  ${JSON.stringify(s.statusCodes)}`].join(" ");
console.log(`${"".padEnd(18)} ${"req/s".padStart(8)} ${"p50".padStart(9)} ${"p99".padStart(9)} ${"total".padStart(8)} ${"non-2xx".padStart(7)} ${"errors".padStart(7)}   status codes`);
console.log(row("GET /health", health));
console.log(row("POST /v1/trigger", trigger));
console.log(`\ntrigger/health throughput ratio: ${(trigger.requestsPerSecond / health.requestsPerSecond).toFixed(3)}`);
if (health.non2xx || trigger.non2xx || health.errors || trigger.errors) {
  console.log("Some requests did not answer 2xx (see the counts above).");
  process.exitCode = 1;
}
