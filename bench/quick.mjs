// Quick A/B for the accept path (not a published benchmark): /health and trigger, 5 s each, twice.
import autocannon from "autocannon";
import { client, ensureWorkflow, startServer } from "./server.mjs";
const measure = (o) => new Promise((res, rej) => autocannon({ connections: 50, duration: 5, ...o }, (e, r) => (e ? rej(e) : res(r))));
const server = await startServer({ vars: { DELIVERY_PAUSED: "true", LEDGER_SHARDS: process.env.SHARDS ?? "32" } });
try {
  const { call, headers } = client(server.baseUrl, server.key);
  await ensureWorkflow(call, "q", "q", [{ id: "email", type: "email", template: { subject: "x", text: "y" } }]);
  const out = [];
  for (let i = 0; i < 2; i++) {
    const h = await measure({ url: `${server.baseUrl}/health` });
    const t = await measure({ url: `${server.baseUrl}/v1/trigger`, method: "POST", headers, idReplacement: true, body: JSON.stringify({ workflow: "q", to: "s1", transactionId: `q${i}-[<id>]` }) });
    out.push(`health ${h.requests.average} p99 ${h.latency.p99} | trigger ${t.requests.average} p50 ${t.latency.p50} p99 ${t.latency.p99} non2xx ${t.non2xx} | ratio ${(t.requests.average / h.requests.average).toFixed(2)}`);
  }
  console.log(out.join("\n"));
} finally {
  await server.stop();
}
