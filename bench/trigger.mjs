// `npm run bench:trigger`: triggers per second and latency at 50 connections against a running
// local Clarion (`npm start`), next to the same figures for GET /health measured in the same run.
import autocannon from "autocannon";
import { BASE_URL, call, ensureWorkflow, headers, requireServer } from "./lib.mjs";

const CONNECTIONS = 50;
const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const WORKFLOW = "bench-trigger";
const SUBSCRIBER = "bench-subscriber";

if (!(DURATION_SECONDS > 0 && DURATION_SECONDS <= 60)) {
  console.error("BENCH_SECONDS must be between 1 and 60.");
  process.exit(1);
}

async function prepare() {
  await requireServer();
  await ensureWorkflow(WORKFLOW, "Benchmark trigger", [
    { id: "email", type: "email", template: { subject: "Hello {{ subscriber.firstName }}", text: "Benchmark." } },
  ]);
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
