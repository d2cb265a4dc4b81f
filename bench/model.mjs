// `npm run bench:model`: the load model of docs/architecture.md. Takes Cloudflare's published
// limits and Clarion's measured per-trigger costs, prints what a target rate costs each
// resource, the ceiling of the configured deployment and the first resource to saturate.
// Override any input as `--name=value` (e.g. `--shards=256 --flushMs=40 --d1Databases=32`).
// No server needed: the measured figures come from `BENCH_VERBOSE=1 npm run bench:delivery`
// (its `delivery_batch` lines: d1Statements and objectCalls per batch of triggers).

/** Cloudflare's published limits (Queues, Durable Objects and D1 limits pages). */
const PUBLISHED = {
  /** Per-queue message throughput. */
  queueMessagesPerSecond: 5_000,
  /** Consumer batch, messages. */
  consumerBatch: 100,
  /** Concurrent consumer invocations per queue (push consumers). */
  consumerConcurrency: 250,
  /** One Durable Object: about 1,000 requests/s (soft; single-threaded). */
  objectRequestsPerSecond: 1_000,
  /** One D1 database runs one query at a time: about 1,000 queries/s at 1 ms each. */
  d1QueriesPerSecond: 1_000,
  /** One D1 database holds 10 GB (Workers Paid). */
  d1Bytes: 10e9,
};

/** Clarion's configuration (wrangler.toml, src/durable-objects/settings.ts). */
const CONFIG = {
  /** Target rate, triggers per second per deployment. */
  target: 100_000,
  queues: 2,
  shards: 32,
  /** How long a ledger shard gathers its accepts before one packed send (OUTBOX_FLUSH_MS). */
  flushMs: 20,
  /** Triggers per API request: 1 for single triggers, up to 100 with /v1/trigger/bulk. */
  perRequest: 1,
  d1Databases: 1,
  /** Days of message history a deployment keeps at the target rate (the log's retention). */
  historyDays: 30,
};

/**
 * Clarion's measurements: `BENCH_N=1000 BENCH_VERBOSE=1 npm run bench:delivery` (single-recipient
 * triggers, one email step, 4 local shards). 0.12: invocations of 275, 300 and 200 triggers wrote
 * 172, 186 and 124 D1 statements (0.62 a trigger) with 14, 14 and 8 object calls; 0.10 measured
 * 103 statements and 11 calls for 150. See docs/architecture.md.
 */
const MEASURED = {
  /** Bytes of one trigger job in a pack. */
  jobBytes: 130,
  /**
   * D1 statements per trigger: the chunks an invocation runs together share their reads (about 6
   * per invocation) and their multi-row writes (trigger records, messages as `sending`, results,
   * events, captures, completions), so a statement carries the rows of many triggers.
   */
  d1StatementsPerTrigger: 0.62,
  /** Calls a consumer invocation makes to each ledger shard it touches (snapshots, fan-out, claim, report, done). */
  objectCallsPerShard: 4.3,
  /**
   * D1 bytes a delivered single-recipient one-step trigger leaves (trigger row, message, its
   * events, their indexes; sandbox captures left out): `npm run bench:storage`, 0.12, 2,000
   * triggers. A three-step one (in-app, email, SMS) leaves 6,218.
   */
  d1BytesPerTrigger: 2_140,
};

const inputs = { ...PUBLISHED, ...CONFIG, ...MEASURED };
for (const arg of process.argv.slice(2)) {
  const [name, value] = arg.replace(/^--/, "").split("=");
  if (!(name in inputs) || !Number.isFinite(Number(value))) {
    console.error(`unknown input or value: ${arg}; inputs: ${Object.keys(inputs).join(", ")}`);
    process.exit(1);
  }
  inputs[name] = Number(value);
}
const i = inputs;
const PACK_BYTES = 120_000;

const DAY = 86_400;
/** Bytes the log of `historyDays` at rate `r` takes. */
const historyBytes = (r) => r * DAY * i.historyDays * i.d1BytesPerTrigger;

/** What rate `r` costs each resource, as a share of what it can take (1 = saturated). */
function load(r) {
  const roundsPerShard = 1000 / i.flushMs;
  const perShard = r / i.shards;
  // Each round of a shard leaves as one message (more only past 120 KB of jobs).
  const jobsPerRound = Math.max(1, perShard / roundsPerShard);
  const messagesPerSecond = i.shards * Math.min(perShard, roundsPerShard) * Math.ceil((jobsPerRound * i.jobBytes) / PACK_BYTES);
  const messagesPerInvocation = Math.min(i.consumerBatch, Math.max(1, messagesPerSecond / i.queues));
  const invocationsPerSecond = messagesPerSecond / messagesPerInvocation;
  const shardsPerInvocation = Math.min(i.shards, messagesPerInvocation);
  const acceptCallsPerShard = ((r / i.perRequest) * Math.min(i.perRequest, i.shards)) / i.shards;
  const deliveryCallsPerShard = (invocationsPerSecond * shardsPerInvocation * i.objectCallsPerShard) / i.shards;
  const d1Statements = r * i.d1StatementsPerTrigger;
  return {
    figures: {
      acceptCallsPerShard,
      deliveryCallsPerShard,
      messagesPerSecond,
      triggersPerMessage: r / messagesPerSecond,
      invocationsPerSecond,
      d1Statements,
    },
    shares: {
      "ledger shard (requests/s per object)": (acceptCallsPerShard + deliveryCallsPerShard) / i.objectRequestsPerSecond,
      "Queues (messages/s per queue)": messagesPerSecond / i.queues / i.queueMessagesPerSecond,
      "D1 (queries/s per database)": d1Statements / i.d1Databases / i.d1QueriesPerSecond,
      // What historyDays of the log take, against the databases' size: a rate that fills them
      // before the oldest rows expire is not sustainable either.
      "D1 (bytes of history per database)": historyBytes(r) / i.d1Databases / i.d1Bytes,
    },
  };
}

const fmt = (n) => Math.round(n).toLocaleString("en-US");
const at = load(i.target);
console.log(`Inputs (published [CF], configured [Clarion], measured [Clarion]):`);
for (const [group, values] of [
  ["CF", PUBLISHED],
  ["config", CONFIG],
  ["measured", MEASURED],
])
  console.log(
    `  ${group.padEnd(9)}${Object.keys(values)
      .map((k) => `${k}=${i[k]}`)
      .join("  ")}`,
  );
const f = at.figures;
console.log(`\nAt ${fmt(i.target)} triggers/s:`);
console.log(
  `  ledger calls per shard/s   ${fmt(f.acceptCallsPerShard)} accept + ${fmt(f.deliveryCallsPerShard)} delivery (limit ${fmt(i.objectRequestsPerSecond)})`,
);
console.log(
  `  Queue messages/s           ${fmt(f.messagesPerSecond)} (${f.triggersPerMessage.toFixed(1)} triggers each; limit ${fmt(i.queues * i.queueMessagesPerSecond)} over ${i.queues} queues)`,
);
console.log(`  consumer invocations/s     ${fmt(f.invocationsPerSecond)}`);
console.log(
  `  D1 statements/s            ${fmt(f.d1Statements)} (limit ${fmt(i.d1Databases * i.d1QueriesPerSecond)} over ${i.d1Databases} database(s))`,
);
console.log(
  `  D1 history                 ${(historyBytes(i.target) / 1e9).toLocaleString("en-US", { maximumFractionDigits: 1 })} GB for ${i.historyDays} days (${fmt((i.d1Databases * i.d1Bytes) / 1e9)} GB over ${i.d1Databases} database(s): ${((i.d1Databases * i.d1Bytes) / (i.target * DAY * i.d1BytesPerTrigger)).toFixed(2)} days held)`,
);
for (const [name, share] of Object.entries(at.shares)) console.log(`  ${name.padEnd(40)} ${(share * 100).toFixed(0)} %`);

// The ceiling: the highest rate at which every resource stays under its limit.
let low = 1;
let high = 10_000_000;
while (high - low > 1) {
  const mid = Math.floor((low + high) / 2);
  if (Math.max(...Object.values(load(mid).shares)) <= 1) low = mid;
  else high = mid;
}
const first = Object.entries(load(high).shares).sort(([, a], [, b]) => b - a)[0][0];
console.log(`\nCeiling of this deployment: ${fmt(low)} triggers/s; the first resource to saturate: ${first}.`);
if (low < i.target) {
  const d1Needed = Math.ceil(f.d1Statements / i.d1QueriesPerSecond);
  const d1ForHistory = Math.ceil(historyBytes(i.target) / i.d1Bytes);
  console.log(
    `To reach ${fmt(i.target)}/s: D1 needs ${fmt(d1Needed)} database(s) for its statements and ${fmt(d1ForHistory)} for ${i.historyDays} days of history at these per-trigger costs (docs/architecture.md), or a log that leaves D1.`,
  );
}
