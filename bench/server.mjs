// Each benchmark starts its own local Clarion: its own port (PORT, default 8797), its own state
// folder and wrangler dev registry (so no other local Clarion consumes its queue jobs), and its
// own environment whose integrations are the sandbox providers only: a benchmark never sends
// through a real provider, whatever the development environment of `npm start` holds.
import { spawn } from "node:child_process";
import autocannon from "autocannon";
import { createWriteStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { applyMigrations, ensureEnvironments, ensureSandboxIntegrations, localSql, newEncryptionKey } from "../scripts/bootstrap.mjs";
import { LOCAL_LEDGER_SHARDS, run } from "../scripts/lib.mjs";
import { parseDeliveryQueues, withDeliveryQueues } from "../scripts/deploy/queues.mjs";

const HOST = "127.0.0.1";

/**
 * @param {{ vars?: Record<string, string>, countD1?: boolean, port?: string, inspectorPort?: number, acceptOnly?: boolean, testScheduled?: boolean, rateLimits?: boolean, environments?: string[], restart?: { folder: string, key: string, keys?: Record<string, string>, encryptionKey: string } }} [options]
 *   `vars` are wrangler vars for this run; `acceptOnly` runs without Queue consumers (jobs stay
 *   queued: the accept path alone); `rateLimits: false` runs without the `[[ratelimits]]`
 *   bindings (what the limiter costs); `environments` are more sandbox environments beside
 *   `bench` (their API keys in `keys`); `restart` starts again on the state of a stopped server;
 *   `testScheduled` lets the script run the cron at `GET /__scheduled` (wrangler dev never runs it by itself);
 *   `countD1` starts bench/d1-counter/worker.ts, which counts the D1 statements of the Worker's handlers.
 */
/** BENCH_LOCAL_OBSERVABILITY=1 keeps wrangler's local trace store on, as `wrangler dev` has it by default. */
export const LOCAL_OBSERVABILITY = process.env.BENCH_LOCAL_OBSERVABILITY === "1";

/** An autocannon run as a promise of its result. */
export const loadTest = (options) =>
  new Promise((resolve, reject) => autocannon(options, (error, result) => (error ? reject(error) : resolve(result))));

/** The median of some figures (of an even count, the upper of the middle two). */
export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * BENCH_REPEAT: how many times bench:fanout and bench:broadcast run on their one set-up (1 to 20,
 * default 1). A shared machine's speed moves between runs, and set-up is most of a run's time.
 * Anything else ends the script before a server starts.
 */
export function benchRepeat() {
  const repeat = Number(process.env.BENCH_REPEAT ?? 1);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > 20) {
    console.error("BENCH_REPEAT must be an integer between 1 and 20.");
    process.exit(1);
  }
  return repeat;
}

/**
 * The workflow (one email step) and subscriber every accept-path benchmark triggers, made if
 * missing; answers the trigger's body (bench:trigger adds a transactionId, bench:profile sends it
 * as it is).
 */
export async function ensureBenchTrigger(call) {
  await ensureWorkflow(call, "bench-trigger", "Benchmark trigger", [
    { id: "email", type: "email", template: { subject: "Hello", text: "Benchmark." } },
  ]);
  const sub = await call("POST", "/sub", { subscriberId: "bench-subscriber", email: "bench@example.com" });
  if (sub.status !== 200 && sub.status !== 201) throw new Error(`upserting the subscriber answered ${sub.status}`);
  return { workflow: "bench-trigger", to: "bench-subscriber", payload: { n: 1 } };
}

/**
 * `GET /health` and the single trigger bench:trigger sends, on a started accept-only server, each
 * already run 500 times (the first requests compile the isolate's code and start the ledger
 * shards), with `load(endpoint, amount)` to drive one at 20 connections: what bench:accept-cpu
 * and bench:alloc measure, alternated.
 */
export async function warmAcceptEndpoints(server) {
  const { call, headers } = client(server.baseUrl, server.key);
  const event = await ensureBenchTrigger(call);
  const endpoints = {
    health: { url: `${server.baseUrl}/health` },
    trigger: {
      url: `${server.baseUrl}/v1/trigger`,
      method: "POST",
      body: JSON.stringify(event),
    },
  };
  const load = (endpoint, amount) => loadTest({ ...endpoint, headers, connections: 20, amount });
  await load(endpoints.health, 500);
  await load(endpoints.trigger, 500);
  return { endpoints, load };
}

export async function startServer(options = {}) {
  const port = options.port ?? process.env.PORT ?? "8797";
  const folder = options.restart?.folder ?? mkdtempSync(join(tmpdir(), "clarion-bench-"));
  const persistTo = join(folder, "state");
  const encryptionKey = options.restart?.encryptionKey ?? newEncryptionKey();
  // The Worker serves the dashboard's build as its assets: wrangler refuses to start without it.
  if (!existsSync("dashboard/dist")) await run("vite", ["build", "--config", "dashboard/vite.config.ts", "--logLevel", "warn"]);
  let key = options.restart?.key;
  let keys = options.restart?.keys ?? { bench: key };
  if (!key) {
    await applyMigrations({ persistTo });
    const sql = localSql({ persistTo });
    const slugs = ["bench", ...(options.environments ?? [])];
    keys = (await ensureEnvironments(sql, slugs)).keys;
    key = keys.bench;
    for (const slug of slugs) await ensureSandboxIntegrations(sql, encryptionKey, slug);
  }

  // The local runtime runs every object on one thread: shards add no parallelism there, only
  // per-call costs, so local servers use fewer (BENCH_SHARDS, default as `npm start`: 4).
  const vars = {
    PUBLIC_URL: `http://${HOST}:${port}`,
    ENCRYPTION_KEY: encryptionKey,
    LEDGER_SHARDS: process.env.BENCH_SHARDS ?? LOCAL_LEDGER_SHARDS,
    // The bench's fake providers listen on 127.0.0.1.
    ALLOW_PRIVATE_DESTINATIONS: "true",
    ...options.vars,
  };
  const dropped = [...(options.acceptOnly ? ["[[queues.consumers]]"] : []), ...(options.rateLimits === false ? ["[[ratelimits]]"] : [])];
  // `countD1`: the Worker's D1 statements counted by a bench-only entry (bench/d1-counter/), read with `d1Statements()`.
  const main = options.countD1 ? "bench/d1-counter/worker.ts" : undefined;
  // BENCH_DELIVERY_QUEUES=N binds N delivery queues, as `npm run deploy -- --delivery-queues N` does.
  const queues = process.env.BENCH_DELIVERY_QUEUES ? parseDeliveryQueues(process.env.BENCH_DELIVERY_QUEUES) : null;
  const config = dropped.length || main || queues ? configWithout(folder, dropped, main, queues) : "wrangler.toml";
  const args = [
    "dev",
    "-c",
    config,
    "--local",
    "--ip",
    HOST,
    "--port",
    port,
    "--persist-to",
    persistTo,
    "--show-interactive-dev-session=false",
    ...(options.testScheduled ? ["--test-scheduled"] : []),
    // bench/profile.mjs reads the Worker's CPU profile through the inspector.
    ...(options.inspectorPort ? ["--inspector-port", String(options.inspectorPort)] : []),
  ];
  for (const [name, value] of Object.entries(vars)) args.push("--var", `${name}:${value}`);
  const child = spawn("wrangler", args, {
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
    env: {
      ...process.env,
      WRANGLER_SEND_METRICS: "false",
      WRANGLER_REGISTRY_PATH: join(folder, "registry"),
      // wrangler dev's local trace store (its local observability explorer, on by default) writes
      // every invocation's events to a SQLite file, with an fsync per commit, on the same thread as
      // the Worker: more than the ledger's own commits, and charged per invocation, so a trigger (a
      // Worker and a ledger invocation) pays it twice where /health pays once. Nothing like it is
      // on a request's path on Cloudflare. Off unless BENCH_LOCAL_OBSERVABILITY=1 (docs/guides/benchmarks.md).
      X_LOCAL_OBSERVABILITY: LOCAL_OBSERVABILITY ? "true" : "false",
    },
  });
  // A script that fails half-way must not leave its server running (it would hold the port).
  const killOnExit = () => {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  };
  process.once("exit", killOnExit);
  let log = "";
  child.stdout.on("data", (d) => (log += d));
  child.stderr.on("data", (d) => (log += d));
  // BENCH_LOG_OUT=file keeps the Worker's whole output (its delivery_batch lines say where a batch's time went).
  if (process.env.BENCH_LOG_OUT) {
    const out = createWriteStream(process.env.BENCH_LOG_OUT);
    child.stdout.pipe(out);
    child.stderr.pipe(out);
  }
  const baseUrl = `http://${HOST}:${port}`;
  const deadline = Date.now() + 120_000;
  for (;;) {
    const ok = await fetch(`${baseUrl}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline || child.exitCode !== null) {
      child.kill("SIGKILL");
      throw new Error(`the benchmark server did not start on ${baseUrl}:\n${log.slice(-2000)}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  /** Kills the whole local runtime at once (as a crash would); `keep` leaves its state for a restart. */
  const stop = async ({ keep = false } = {}) => {
    process.removeListener("exit", killOnExit);
    killOnExit();
    await new Promise((r) => setTimeout(r, 500));
    if (!keep) rmSync(folder, { recursive: true, force: true });
    if (config !== "wrangler.toml") rmSync(config, { force: true });
  };
  return {
    baseUrl,
    key,
    keys,
    persistTo,
    folder,
    encryptionKey,
    stop,
    log: () => log,
    /** The D1 statements the Worker's handlers sent so far (a server started with `countD1`). */
    d1Statements: async () => (await fetch(`${baseUrl}/__bench/d1`)).json(),
    pid: child.pid,
    cpuSeconds: () => cpuSeconds(child.pid),
  };
}

/**
 * CPU seconds the local runtime has used so far (wrangler, workerd and their helpers: the
 * server's process group), from /proc; null where there is none. On a shared machine the wall
 * time of a run moves with everyone's load, its CPU time much less: compare runs by both.
 */
export function cpuSeconds(group) {
  if (!existsSync("/proc/self/stat")) return null;
  let ticks = 0;
  for (const pid of readdirSync("/proc")) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      // Fields after the command name: state, ppid, pgrp, ... utime (14th) and stime (15th) of the whole line.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === group) ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended while the list was read.
    }
  }
  // Linux reports in clock ticks, 100 per second on every common configuration.
  return ticks / 100;
}

/** "12.3 s of CPU" between two readings of `cpuSeconds`, or "" where there are none. */
export const cpuSpent = (before, after) =>
  before === null || after === null ? "" : `, ${(after - before).toFixed(1)} s of CPU in the local runtime`;

/**
 * The project's wrangler.toml without the blocks of the given tables (and with another `main`, or
 * `deliveryQueues` delivery queues), written beside it (paths
 * in a wrangler config are relative to the file) under a name unique to this run.
 */
function configWithout(folder, tables, main, deliveryQueues) {
  const toml = readFileSync("wrangler.toml", "utf8");
  const queued = deliveryQueues ? withDeliveryQueues(toml, { produced: deliveryQueues, consumed: deliveryQueues }) : toml;
  const source = main ? queued.replace(/^main = .*$/m, `main = ${JSON.stringify(main)}`) : queued;
  const blocks = source.split(/\n(?=\[)/).filter((block) => !tables.some((table) => block.startsWith(table)));
  const file = `.wrangler-bench-${basename(folder)}.toml`;
  writeFileSync(file, blocks.join("\n"));
  process.once("exit", () => rmSync(file, { force: true }));
  return file;
}

/** A JSON client for one server. */
export function client(baseUrl, key) {
  const headers = { authorization: `ApiKey ${key}`, "content-type": "application/json" };
  const call = async (method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: body && JSON.stringify(body) });
    return { status: res.status, body: await res.json().catch(() => null) };
  };
  return { headers, call };
}

/** Creates a workflow unless it exists. */
/**
 * Creates subscribers `ids` (500 to a `/sub/bulk` call), each with a push token and a chat
 * webhook, so workflows of push and chat steps reach every one through the sandbox providers.
 * `chatUrl` gives each a generic `webhook` chat address instead (a local receiver that counts sends).
 *
 * @param {(subscriberId: string) => string} [chatUrl]
 */
export async function seedPushChatSubscribers(call, ids, chatUrl) {
  for (let i = 0; i < ids.length; i += 500) {
    const subscribers = ids.slice(i, i + 500).map((subscriberId) => ({
      subscriberId,
      channels: {
        push: [{ provider: "fcm", token: `tok-${subscriberId}` }],
        chat: [
          chatUrl
            ? { provider: "webhook", webhookUrl: chatUrl(subscriberId) }
            : { provider: "slack", webhookUrl: `https://hooks.slack.com/services/T/B/${subscriberId}` },
        ],
      },
    }));
    const res = await call("POST", "/sub/bulk", { subscribers });
    if (res.status !== 200) throw new Error(`/sub/bulk answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
  }
  return ids;
}

export async function ensureWorkflow(call, key, name, steps) {
  const existing = await call("GET", `/v1/workflows/${key}`);
  if (existing.status === 200) return;
  const created = await call("POST", "/v1/workflows", { key, name, steps });
  if (created.status !== 201) throw new Error(`creating the workflow answered ${created.status}: ${JSON.stringify(created.body)}`);
}

/** The log's columns under D1's names: a query written for D1's `messages` reads the log unchanged. */
const LOG_MESSAGES = `id, env AS environment_id, tx AS transaction_id, subscriber AS subscriber_id, workflow AS workflow_key,
  step AS step_id, channel, provider, integration AS integration_id, status, provider_message_id, "to", subject, preview,
  content, error_code, error_message, attempts, created_at, updated_at`;
const LOG_EVENTS = "id, env AS environment_id, message_id, status, at, detail";
const LOG_CAPTURES = 'id, env AS environment_id, message_id, channel, provider, "to", content, created_at';

/**
 * Calls `read` with each log shard's SQLite file that holds a message table, opened read-only and
 * closed after: the shards' files are where `localDb` and `logProgress` find the log since 0.13.
 * Synchronous, as `localDb`'s queries are: the caller has imported node:sqlite.
 * @param {typeof import("node:sqlite").DatabaseSync} DatabaseSync
 * @param {string} persistTo
 * @param {(log: import("node:sqlite").DatabaseSync) => void} read
 */
function eachLogShard(DatabaseSync, persistTo, read) {
  const folder = join(persistTo, "v3", "do", "clarion-LogShard");
  if (!existsSync(folder)) return;
  for (const shard of readdirSync(folder).filter((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite")) {
    const log = new DatabaseSync(join(folder, shard), { readOnly: true });
    try {
      log.exec("PRAGMA busy_timeout = 5000");
      if (log.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'messages'").get()) read(log);
    } finally {
      log.close();
    }
  }
}

/**
 * Reads the server's local D1 file directly, read-only: polling through `wrangler d1 execute`
 * would start a process per poll and take the CPU the server under test needs. Messages and
 * their timelines live in the log shards' own SQLite files since 0.13: each query first copies
 * them (with any rows 0.12 left in D1) into an in-memory `messages`, `message_events` and `sandbox_messages` under
 * D1's column names, beside the attached D1 file, so the benchmarks' SQL stays as it was.
 */
export async function localDb(persistTo, { log = true } = {}) {
  process.removeAllListeners("warning");
  const { DatabaseSync } = await import("node:sqlite");
  const folder = join(persistTo, "v3", "d1", "miniflare-D1DatabaseObject");
  const file = readdirSync(folder).find((f) => f.endsWith(".sqlite") && f !== "metadata.sqlite");
  if (!file) throw new Error(`no local D1 database in ${folder}`);
  if (!log) {
    // D1 alone, as its file is (`bench:storage` measures its pages).
    const d1 = new DatabaseSync(join(folder, file), { readOnly: true });
    d1.exec("PRAGMA busy_timeout = 5000");
    return { all: (sql) => d1.prepare(sql).all(), close: () => d1.close() };
  }
  const db = new DatabaseSync(":memory:");
  db.exec("PRAGMA busy_timeout = 5000");
  db.exec(`ATTACH DATABASE 'file:${join(folder, file)}?mode=ro' AS d1`);
  const retrying = (fn) => {
    for (let attempt = 0; ; attempt++) {
      try {
        return fn();
      } catch (error) {
        if (attempt >= 20 || !/BUSY|locked/i.test(String(error))) throw error;
      }
    }
  };
  const copyLog = () => {
    db.exec("DROP TABLE IF EXISTS main.messages; DROP TABLE IF EXISTS main.message_events; DROP TABLE IF EXISTS main.sandbox_messages");
    db.exec("CREATE TABLE main.messages AS SELECT * FROM d1.messages");
    db.exec("CREATE TABLE main.message_events AS SELECT * FROM d1.message_events");
    db.exec("CREATE TABLE main.sandbox_messages AS SELECT * FROM d1.sandbox_messages");
    eachLogShard(DatabaseSync, persistTo, (log) => {
      for (const [table, columns, as] of [
        ["messages", LOG_MESSAGES, "messages"],
        ["message_events", LOG_EVENTS, "message_events"],
        // The sandbox's captures, with their messages since 0.13 (a shard from before has no such table).
        ["sandbox_captures", LOG_CAPTURES, "sandbox_messages"],
      ]) {
        if (!log.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table)) continue;
        const rows = retrying(() => log.prepare(`SELECT ${columns} FROM ${table}`).all());
        if (rows.length === 0) continue;
        const names = Object.keys(rows[0]);
        const insert = db.prepare(
          `INSERT INTO main.${as} (${names.map((n) => `"${n}"`).join(", ")}) VALUES (${names.map(() => "?").join(", ")})`,
        );
        db.exec("BEGIN");
        for (const row of rows) insert.run(...names.map((n) => row[n]));
        db.exec("COMMIT");
      }
    });
  };
  return {
    all: (sql) =>
      retrying(() => {
        copyLog();
        return db.prepare(sql).all();
      }),
    close: () => db.close(),
  };
}

/**
 * How far a run's messages are, read straight from the log shards' files: per shard one count of
 * the run's messages by status and the latest time one of them changed. A poll of `localDb`
 * copies every shard's whole log first, which grows with every run and holds read locks on the
 * files the server is writing; this reads one small aggregate per shard. `lastAt` is the server's
 * own clock (epoch ms), so a run's end is known to the millisecond whatever the poll interval.
 * @param {string} persistTo
 * @param {string} txPrefix  the run's transactionIds start with it
 */
export async function logProgress(persistTo, txPrefix) {
  process.removeAllListeners("warning");
  const { DatabaseSync } = await import("node:sqlite");
  const totals = { sent: 0, failed: 0, lastAt: 0 };
  eachLogShard(DatabaseSync, persistTo, (log) => {
    const rows = log
      .prepare("SELECT status, count(*) AS n, max(updated_at) AS at FROM messages WHERE tx >= ? AND tx < ? GROUP BY status")
      .all(txPrefix, `${txPrefix}\uffff`);
    for (const r of rows) {
      if (r.status === "sent") totals.sent += Number(r.n);
      if (r.status === "failed") totals.failed += Number(r.n);
      if (r.status === "sent" || r.status === "failed") totals.lastAt = Math.max(totals.lastAt, Number(r.at));
    }
  });
  return totals;
}

/**
 * When a run of one trigger ended, by the server's clock: the trigger record's completion (read
 * from the log shard that holds it; a poll of its status comes up to its interval late) and its
 * last message's own status time (stamped before its row is written, so before the completion),
 * both in seconds from `startedAt` (epoch ms). `seconds` falls back to `polled` for a trigger
 * that did not complete.
 * @param {string} persistTo
 * @param {string} transactionId
 * @param {{ status?: string } | undefined} status  the last status the poll read
 * @param {number} startedAt
 * @param {number} polled  seconds until the poll saw it end
 */
export async function runEnd(persistTo, transactionId, status, startedAt, polled) {
  process.removeAllListeners("warning");
  const { DatabaseSync } = await import("node:sqlite");
  let completedAt = null;
  if (status?.status === "completed")
    eachLogShard(DatabaseSync, persistTo, (log) => {
      const row = log.prepare("SELECT updated_at AS at FROM triggers WHERE tx = ?").get(transactionId);
      if (row) completedAt = Math.max(completedAt ?? 0, Number(row.at));
    });
  const { lastAt } = await logProgress(persistTo, transactionId);
  return {
    seconds: completedAt !== null ? (completedAt - startedAt) / 1000 : polled,
    lastSent: (lastAt - startedAt) / 1000,
  };
}

/** Counts sandbox sends (provider calls) and distinct messages of a set of transactions, from the server's local D1. */
export async function providerCalls(persistTo, where) {
  const db = await localDb(persistTo);
  const [row] = db.all(
    `SELECT count(*) AS captures, count(DISTINCT c.message_id) AS messages FROM sandbox_messages c JOIN messages m ON m.id = c.message_id WHERE ${where}`,
  );
  db.close();
  return { captures: Number(row.captures), messages: Number(row.messages) };
}
