// `npm run bench:alloc`: the bytes the Worker's isolate allocates per request (the accepting
// Worker and its Durable Objects share it locally) for `GET /health` and `POST /v1/trigger`,
// accept-only with rate limits on, from V8's sampling heap profiler with collected objects
// counted: what the garbage collector has to clear after each request. Prints each round and,
// for the trigger's last round, the functions that allocated most.
//
// Why beside bench:accept-cpu: allocation is a property of the code, not of the machine's load,
// so it moves by about 2 % between runs where CPU per request moves by 10 % or more; a difference
// between two builds' accept paths shows here when CPU cannot resolve it (docs/guides/benchmarks.md).
//
// `--delivery`: the consumers on (bench:trigger's "delivery running"), and a trigger round counts
// until its triggers' messages are all sent: the bytes per trigger accepted and delivered.
import { writeFileSync } from "node:fs";
import { devtools } from "./inspector.mjs";
import { localDb, startServer, warmAcceptEndpoints } from "./server.mjs";

const N = Number(process.env.BENCH_N ?? 3_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const TOP = Number(process.env.TOP ?? 25);
const INSPECTOR = 9241;
const DELIVERY = process.argv.includes("--delivery");
const DELIVERY_TIMEOUT_MS = 180_000;

/**
 * With `--delivery`, waits until `count` messages of triggers whose transactionIds start with
 * `prefix` are sent or failed. Read through `localDb` (the log shards' files, and D1's messages
 * for a release before the log left D1), so the script also measures 0.12 (docs/guides/benchmarks.md).
 */
async function deliveredAll(persistTo, prefix, count) {
  const db = await localDb(persistTo);
  try {
    const started = performance.now();
    for (;;) {
      const [r] = db.all(`SELECT count(*) AS n FROM messages WHERE transaction_id LIKE '${prefix}%' AND status IN ('sent', 'failed')`);
      if (Number(r.n) >= count) return;
      if (performance.now() - started > DELIVERY_TIMEOUT_MS)
        throw new Error(`${r.n} of ${count} messages delivered after ${DELIVERY_TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  } finally {
    db.close();
  }
}

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

const server = await startServer({ acceptOnly: !DELIVERY, inspectorPort: INSPECTOR });
try {
  const { endpoints, load } = await warmAcceptEndpoints(server);
  // The warm-up's 500 triggers delivered first, so a round counts its own deliveries only.
  if (DELIVERY) await deliveredAll(server.persistTo, "", 500);
  const inspector = await devtools(INSPECTOR);
  await inspector.send("HeapProfiler.enable");
  const run = Date.now().toString(36);
  console.log(
    `${N} requests a round at 20 connections, ${ROUNDS} rounds, rate limits on, ${DELIVERY ? "consumers on (a trigger round ends when its messages are sent)" : "consumers off"}`,
  );
  for (let round = 1; round <= ROUNDS; round++) {
    for (const name of ["health", "trigger"]) {
      const prefix = `${run}-${round}-`;
      // Each trigger its own transactionId under the round's prefix, so its deliveries can be counted.
      const endpoint =
        DELIVERY && name === "trigger"
          ? {
              ...endpoints.trigger,
              idReplacement: true,
              body: JSON.stringify({ ...JSON.parse(endpoints.trigger.body), transactionId: `${prefix}[<id>]` }),
            }
          : endpoints[name];
      // Every 1,024 bytes sampled, and objects already collected kept: all that was allocated, not what is still alive.
      await inspector.send("HeapProfiler.startSampling", {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
      const result = await load(endpoint, N);
      if (DELIVERY && name === "trigger") await deliveredAll(server.persistTo, prefix, result["2xx"]);
      const { profile } = (await inspector.send("HeapProfiler.stopSampling")).result;
      const { byFunction, total } = allocated(profile);
      const what = DELIVERY && name === "trigger" ? "bytes a trigger, accepted and delivered" : "bytes a request";
      console.log(`round ${round}: ${name} ${(total / N).toFixed(0)} ${what}${result.non2xx ? ` (${result.non2xx} non-2xx)` : ""}`);
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
