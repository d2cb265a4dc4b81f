// The local runtime's own prices, for `npm run bench:runtime-costs` (bench/runtime-costs.mjs): a
// Worker and one SQLite-backed Durable Object doing nothing but the primitive under test, N times
// a request, so the script can divide the runtime's CPU by N. No Clarion code: these are what
// every Clarion figure measured locally is made of (docs/guides/benchmarks.md).
import { DurableObject } from "cloudflare:workers";

interface Env {
  BOX: DurableObjectNamespace<Box>;
  DB: D1Database;
  QUEUE: Queue<unknown>;
}

export class Box extends DurableObject<Env> {
  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    ctx.storage.sql.exec("CREATE TABLE IF NOT EXISTS t (k INTEGER PRIMARY KEY, v TEXT)");
  }

  /** `n` statements in one call: what a statement costs once the call's transaction is open. */
  statements(n: number): number {
    let sum = 0;
    for (let i = 0; i < n; i++) sum += this.ctx.storage.sql.exec<{ x: number }>("SELECT 1 AS x").one().x;
    return sum;
  }

  noop(): number {
    return 1;
  }

  /** One read of a table: the first storage access of a call. */
  read(): number {
    return this.ctx.storage.sql.exec("SELECT k FROM t WHERE k > ? ORDER BY k LIMIT 10", 5).toArray().length;
  }

  /** One write: the call's transaction is committed (an fsync of the local SQLite file) before its answer. */
  write(): number {
    this.ctx.storage.sql.exec("INSERT OR REPLACE INTO t (k, v) VALUES (?, ?)", 1, String(Math.random()));
    return 1;
  }

  /** An argument and an answer of about 2 KB: what a call's payload adds. */
  echo(value: unknown): unknown {
    return value;
  }
}

const PAYLOAD = {
  rows: Array.from({ length: 20 }, (_, i) => ({ id: `msg_${i}`.padEnd(36, "x"), env: "env_bench", n: i, text: "a line of text" })),
};

const OPS: Record<string, (env: Env, box: DurableObjectStub<Box>, n: number) => Promise<unknown>> = {
  statement: (_env, box, n) => box.statements(n),
  call: async (_env, box, n) => {
    for (let i = 0; i < n; i++) await box.noop();
  },
  "call with 2 KB": async (_env, box, n) => {
    for (let i = 0; i < n; i++) await box.echo(PAYLOAD);
  },
  "call with a read": async (_env, box, n) => {
    for (let i = 0; i < n; i++) await box.read();
  },
  "call with a write": async (_env, box, n) => {
    for (let i = 0; i < n; i++) await box.write();
  },
  "D1 query": async (env, _box, n) => {
    for (let i = 0; i < n; i++) await env.DB.prepare("SELECT 1").first();
  },
  "Queue send": async (env, _box, n) => {
    for (let i = 0; i < n; i++) await env.QUEUE.send({ i });
  },
};

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const op = OPS[url.searchParams.get("op") ?? ""];
    if (!op) return new Response(JSON.stringify(Object.keys(OPS)), { headers: { "content-type": "application/json" } });
    await op(env, env.BOX.get(env.BOX.idFromName("bench")), Number(url.searchParams.get("n") ?? 1000));
    return new Response("ok");
  },
  async queue(batch: MessageBatch<unknown>): Promise<void> {
    batch.ackAll();
  },
};
