// `npm run bench:runtime-costs`: what the local runtime (wrangler dev: workerd, and wrangler's own
// proxy in front of it) charges for the primitives every Clarion figure measured locally is made
// of, without Clarion: a Durable Object call, a statement inside one, the first read and the
// committed write of a call, a 2 KB argument, a D1 query and a Queue send. It starts
// bench/runtime-costs/worker.ts on its own port and state, has it repeat each primitive N times
// (BENCH_N, default 2,000) in one request, three rounds, and prints the median CPU (the runtime's
// processes, from /proc) and wall time per operation. What the figures mean for Clarion's local
// benchmarks is in docs/guides/benchmarks.md ("What a local run is made of").
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuSeconds, median } from "./server.mjs";

const N = Number(process.env.BENCH_N ?? 2_000);
const PORT = process.env.PORT ?? "8797";
const ROUNDS = 3;
const base = `http://127.0.0.1:${PORT}`;
const folder = mkdtempSync(join(tmpdir(), "clarion-runtime-costs-"));
const child = spawn(
  "wrangler",
  [
    "dev",
    "-c",
    "bench/runtime-costs/wrangler.toml",
    "--local",
    "--ip",
    "127.0.0.1",
    "--port",
    PORT,
    "--persist-to",
    join(folder, "state"),
    "--show-interactive-dev-session=false",
  ],
  {
    stdio: "ignore",
    detached: true,
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_REGISTRY_PATH: join(folder, "registry"),
      X_LOCAL_OBSERVABILITY: "false",
    },
  },
);
const stop = () => {
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {}
  rmSync(folder, { recursive: true, force: true });
};
process.once("exit", stop);

async function ready() {
  for (let i = 0; i < 240; i++) {
    const ops = await fetch(base).then(
      (r) => r.json(),
      () => null,
    );
    if (ops) return ops;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`the runtime-costs worker did not start on ${base}`);
}

const ops = await ready();
// Once each first: the object's creation and the first compile are not what is measured.
for (const op of ops) await fetch(`${base}/?op=${encodeURIComponent(op)}&n=10`);
console.log(`${N} operations per request, ${ROUNDS} rounds, median per operation (CPU of the runtime's processes, and wall)`);
console.log(`${"".padEnd(20)} ${"CPU µs".padStart(8)} ${"wall µs".padStart(8)}`);
for (const op of ops) {
  const cpu = [];
  const wall = [];
  for (let round = 0; round < ROUNDS; round++) {
    const before = cpuSeconds(child.pid);
    const started = performance.now();
    const res = await fetch(`${base}/?op=${encodeURIComponent(op)}&n=${N}`);
    await res.text();
    wall.push(((performance.now() - started) * 1000) / N);
    cpu.push(((cpuSeconds(child.pid) - before) * 1e6) / N);
  }
  console.log(`${op.padEnd(20)} ${median(cpu).toFixed(0).padStart(8)} ${median(wall).toFixed(0).padStart(8)}`);
}
stop();
process.exit(0);
