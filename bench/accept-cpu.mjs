// `npm run bench:accept-cpu`: the local runtime's CPU per request (wrangler and workerd, from
// /proc) for `GET /health` and for `POST /v1/trigger`, accept-only with rate limits on, the two
// alternated over BENCH_ROUNDS rounds of BENCH_N requests at 20 connections. It prints each round
// and the medians, and the trigger's own share (trigger minus /health).
//
// Why beside bench:trigger: its throughput ratio moves by ±0.04 from run to run on a shared
// machine, about the size of a difference between two builds' accept paths; CPU per request moves
// less. Compare two builds by running this in each's clean clone, alternated, several times
// (docs/guides/benchmarks.md, "Against a release on the same machine").
import { median, startServer, warmAcceptEndpoints } from "./server.mjs";

const N = Number(process.env.BENCH_N ?? 3_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);

const server = await startServer({ acceptOnly: true });
try {
  if (server.cpuSeconds() === null) throw new Error("bench:accept-cpu reads the runtime's CPU from /proc: Linux only");
  const { endpoints, load } = await warmAcceptEndpoints(server);
  const spent = { health: [], trigger: [] };
  console.log(`${N} requests a round at 20 connections, ${ROUNDS} rounds, rate limits on, consumers off`);
  for (let round = 1; round <= ROUNDS; round++) {
    const line = [];
    for (const name of ["health", "trigger"]) {
      const before = server.cpuSeconds();
      const result = await load(endpoints[name], N);
      const ms = ((server.cpuSeconds() - before) * 1000) / N;
      spent[name].push(ms);
      line.push(`${name} ${ms.toFixed(2)} ms${result.non2xx ? ` (${result.non2xx} non-2xx)` : ""}`);
    }
    console.log(`round ${round}: ${line.join(", ")}`);
  }
  const [health, trigger] = [median(spent.health), median(spent.trigger)];
  console.log(`median CPU per request: GET /health ${health.toFixed(2)} ms, POST /v1/trigger ${trigger.toFixed(2)} ms`);
  console.log(`the trigger's own share: ${(trigger - health).toFixed(2)} ms a request`);
} finally {
  await server.stop();
}
