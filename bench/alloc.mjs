// `npm run bench:alloc`: the bytes the Worker's isolate allocates per request (the accepting
// Worker and its Durable Objects share it locally) for `GET /health` and `POST /v1/trigger`,
// accept-only with rate limits on, from V8's sampling heap profiler with collected objects
// counted: what the garbage collector has to clear after each request. Prints each round and,
// for the trigger's last round, the functions that allocated most.
//
// Why beside bench:accept-cpu: allocation is a property of the code, not of the machine's load,
// so it moves by about 2 % between runs where CPU per request moves by 10 % or more; a difference
// between two builds' accept paths shows here when CPU cannot resolve it (docs/guides/benchmarks.md).
import { writeFileSync } from "node:fs";
import { devtools } from "./inspector.mjs";
import { startServer, warmAcceptEndpoints } from "./server.mjs";

const N = Number(process.env.BENCH_N ?? 3_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const TOP = Number(process.env.TOP ?? 25);
const INSPECTOR = 9241;

/** Bytes by function (name and bundle line) and in all, from a sampling heap profile's tree. */
function allocated(profile) {
  const byFunction = new Map();
  let total = 0;
  const visit = (node) => {
    const f = node.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url ? `${f.url.split("/").pop()}:${f.lineNumber + 1}` : ""}`.trim();
    byFunction.set(key, (byFunction.get(key) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) visit(child);
  };
  visit(profile.head);
  return { byFunction, total };
}

const server = await startServer({ acceptOnly: true, inspectorPort: INSPECTOR });
try {
  const { endpoints, load } = await warmAcceptEndpoints(server);
  const inspector = await devtools(INSPECTOR);
  await inspector.send("HeapProfiler.enable");
  console.log(`${N} requests a round at 20 connections, ${ROUNDS} rounds, rate limits on, consumers off`);
  for (let round = 1; round <= ROUNDS; round++) {
    for (const name of ["health", "trigger"]) {
      // Every 1,024 bytes sampled, and objects already collected kept: all that was allocated, not what is still alive.
      await inspector.send("HeapProfiler.startSampling", {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      const result = await load(endpoints[name], N);
      const { profile } = (await inspector.send("HeapProfiler.stopSampling")).result;
      const { byFunction, total } = allocated(profile);
      console.log(`round ${round}: ${name} ${(total / N).toFixed(0)} bytes a request${result.non2xx ? ` (${result.non2xx} non-2xx)` : ""}`);
      if (name !== "trigger" || round !== ROUNDS) continue;
      // ALLOC_OUT=file.heapprofile keeps the raw profile (Chrome DevTools opens it).
      if (process.env.ALLOC_OUT) writeFileSync(process.env.ALLOC_OUT, JSON.stringify(profile));
      for (const [key, bytes] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP))
        console.log(`${(bytes / N).toFixed(0).padStart(7)} B  ${key}`);
    }
  }
  inspector.close();
} finally {
  await server.stop();
}
