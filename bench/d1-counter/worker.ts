// Clarion with its D1 binding counted, for `bench:delivery` only: bench/server.mjs starts this
// entry (its `countD1` option, a copy of wrangler.toml with this `main`) so production code
// carries no counter. Every statement the Worker's fetch, queue and cron handlers send to D1 is
// counted, one per statement of a batch; `GET /__bench/d1` answers the count of this isolate and
// what it is made of (per statement text).
// The Durable Objects keep the binding as it is: their D1 writes (the log shards' outbox, run
// only when D1 refused a phase) are not counted.
import worker from "../../src/index";
import type { Bindings } from "../../src/env";

export { DigestObject, FanOutCoordinator, InboxSocket, LogShard, ThrottleObject, TriggerLedger } from "../../src/index";

let statements = 0;
/** Statements per first 60 characters of their text: what the count is made of. */
const byText = new Map<string, number>();
const textOf = new WeakMap<D1PreparedStatement, string>();
const count = (statement: D1PreparedStatement) => {
  statements++;
  const text = (textOf.get(statement) ?? "?").replace(/\s+/g, " ").slice(0, 60);
  byText.set(text, (byText.get(text) ?? 0) + 1);
};

/** A statement whose own runs (`run`, `all`, `first`, `raw`) count; it stays D1's own object, so a batch takes it. */
function countedStatement(statement: D1PreparedStatement, text: string): D1PreparedStatement {
  textOf.set(statement, text);
  const target = statement as unknown as Record<string, unknown>;
  for (const name of ["run", "all", "first", "raw"] as const) {
    const own = statement[name].bind(statement) as (...args: unknown[]) => unknown;
    target[name] = (...args: unknown[]) => {
      count(statement);
      return own(...args);
    };
  }
  const bind = statement.bind.bind(statement);
  target.bind = (...values: unknown[]) => countedStatement(bind(...values), text);
  return statement;
}

const countedDbs = new WeakMap<D1Database, D1Database>();
function countedDb(db: D1Database): D1Database {
  let counted = countedDbs.get(db);
  if (!counted) {
    counted = new Proxy(db, {
      get(target, key) {
        if (key === "prepare") return (text: string) => countedStatement(target.prepare(text), text);
        if (key === "batch")
          return (list: D1PreparedStatement[]) => {
            for (const statement of list) count(statement);
            return target.batch(list);
          };
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
    });
    countedDbs.set(db, counted);
  }
  return counted;
}

const countedEnvs = new WeakMap<Bindings, Bindings>();
function counted(env: Bindings): Bindings {
  let e = countedEnvs.get(env);
  if (!e) {
    e = { ...env, DB: countedDb(env.DB) };
    countedEnvs.set(env, e);
  }
  return e;
}

export default {
  fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/__bench/d1") return Response.json({ statements, byText: Object.fromEntries(byText) });
    return worker.fetch(request, counted(env), ctx);
  },
  queue(batch, env) {
    return worker.queue(batch, counted(env));
  },
  scheduled(controller, env) {
    return worker.scheduled(controller, counted(env));
  },
} satisfies ExportedHandler<Bindings>;
