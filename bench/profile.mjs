// `npm run bench:profile`: where the accept path's CPU goes. Starts a local Clarion (accept-only,
// rate limits on, as deployed) with the inspector open, drives POST /v1/trigger (or, with
// `--bulk`, bulk calls of 100) at 50 connections for BENCH_SECONDS, and prints the functions
// with the most self time in the Worker's isolate (the accepting Worker and its Durable Objects
// share it locally). Time the isolate spends idle or in the runtime's own C++ (storage commits,
// RPC transport) shows as "(idle)" / "(program)".
import autocannon from "autocannon";
import { client, ensureWorkflow, startServer } from "./server.mjs";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const BULK = process.argv.includes("--bulk");
const INSPECTOR = 9239;
const WORKFLOW = "bench-trigger";

async function inspector() {
  for (let i = 0; i < 40; i++) {
    const list = await fetch(`http://127.0.0.1:${INSPECTOR}/json`).then(
      (r) => r.json(),
      () => null,
    );
    const target = list?.find((t) => t.webSocketDebuggerUrl);
    if (target) return target.webSocketDebuggerUrl;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("no inspector target");
}

function session(url) {
  // The inspector proxy refuses an upgrade without an Origin (Node's WebSocket takes headers).
  const ws = new WebSocket(url, { headers: { origin: `http://127.0.0.1:${INSPECTOR}` } });
  let id = 0;
  const waiting = new Map();
  ws.addEventListener("message", (e) => {
    const msg = JSON.parse(String(e.data));
    if (msg.id && waiting.has(msg.id)) {
      waiting.get(msg.id)(msg);
      waiting.delete(msg.id);
    }
  });
  const ready = new Promise((r) => ws.addEventListener("open", r, { once: true }));
  const send = async (method, params = {}) => {
    await ready;
    const n = ++id;
    ws.send(JSON.stringify({ id: n, method, params }));
    return new Promise((r) => waiting.set(n, r));
  };
  return { send, close: () => ws.close() };
}

const server = await startServer({
  acceptOnly: true,
  inspectorPort: INSPECTOR,
  vars: process.env.BENCH_FLUSH_MS ? { OUTBOX_FLUSH_MS: process.env.BENCH_FLUSH_MS } : {},
});
try {
  const { call, headers } = client(server.baseUrl, server.key);
  await ensureWorkflow(call, WORKFLOW, "Benchmark trigger", [
    { id: "email", type: "email", template: { subject: "Hello", text: "Benchmark." } },
  ]);
  await call("POST", "/sub", { subscriberId: "bench-subscriber", email: "bench@example.com" });
  const devtools = session(await inspector());
  await devtools.send("Profiler.enable");
  await devtools.send("Profiler.setSamplingInterval", { interval: 200 });
  await devtools.send("Profiler.start");
  const event = { workflow: WORKFLOW, to: "bench-subscriber", payload: { n: 1 } };
  const result = await new Promise((resolve, reject) =>
    autocannon(
      BULK
        ? {
            url: `${server.baseUrl}/v1/trigger/bulk`,
            method: "POST",
            headers,
            connections: 10,
            duration: SECONDS,
            body: JSON.stringify({ events: Array.from({ length: 100 }, () => event) }),
          }
        : { url: `${server.baseUrl}/v1/trigger`, method: "POST", headers, connections: 50, duration: SECONDS, body: JSON.stringify(event) },
      (error, r) => (error ? reject(error) : resolve(r)),
    ),
  );
  const {
    result: { profile },
  } = await devtools.send("Profiler.stop");
  devtools.close();
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map();
  const dt = profile.timeDeltas;
  profile.samples.forEach((nodeId, i) => {
    const n = byId.get(nodeId);
    const f = n.callFrame;
    const where = f.url ? `${f.url.split("/").slice(-2).join("/")}:${f.lineNumber + 1}` : "";
    const key = `${f.functionName || "(anonymous)"} ${where}`.trim();
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  console.log(
    `${BULK ? "bulk calls of 100" : "single triggers"}: ${result.requests.total} requests in ${SECONDS} s (${result.non2xx} non-2xx), ${(total / 1e6).toFixed(1)} s of samples`,
  );
  for (const [key, us] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) {
    console.log(`${((100 * us) / total).toFixed(1).padStart(5)} %  ${key}`);
  }
} finally {
  await server.stop();
}
