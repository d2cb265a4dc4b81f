// `npm run bench:model`: the load model of docs/architecture.md. Takes Cloudflare's published
// limits and Clarion's measured per-trigger costs, prints what a target rate costs each
// resource, the ceiling of the configured deployment and the first resource to saturate.
// Override any input as `--name=value` (e.g. `--shards=256 --flushMs=40 --d1Databases=32`).
// No server needed: the measured figures come from `BENCH_VERBOSE=1 npm run bench:delivery`
// (its `delivery_batch` lines: d1Statements and objectCalls per batch of triggers), from
// `bench:storage` (D1 bytes per trigger) and from `bench:reads` (the log's bytes per message).
//
// The message log lives in log shards (Durable Object SQLite, 0.13); `--logInD1=1` models 0.12,
// where it lived in D1. `--logGenerationDays=N` models generations (LOG_GENERATION_DAYS=N): a new
// set of `logShards` shards every N days, so a shard holds N days, an unfiltered page asks one set
// (the next older only when the newest cannot fill it), and a read by subscriber or trigger asks
// one shard per generation kept. The read costs it prints follow from that.

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
  /** One SQLite-backed Durable Object holds 10 GB (Durable Objects limits page); the number of objects is unlimited. */
  logObjectBytes: 10e9,
  /** Subrequests one invocation may make, Durable Object calls included (Workers Paid, Workers limits page). */
  subrequestsPerInvocation: 10_000,
  /** Outbound responses one invocation waits for at once (Workers limits page: simultaneous open connections). */
  connectionsPerInvocation: 6,
};

/** Clarion's configuration (wrangler.toml, src/durable-objects/settings.ts). */
const CONFIG = {
  /** Target rate, triggers per second per deployment. */
  target: 100_000,
  /** Delivery queues: wrangler.toml binds two, `npm run deploy -- --delivery-queues N` binds N. */
  queues: 2,
  shards: 32,
  /** How long a ledger shard gathers its accepts before one packed send (OUTBOX_FLUSH_MS). */
  flushMs: 20,
  /** Triggers per API request: 1 for single triggers, up to 100 with /v1/trigger/bulk. */
  perRequest: 1,
  d1Databases: 1,
  /** Days of message history a deployment keeps at the target rate (the log's retention). */
  historyDays: 30,
  /**
   * One-recipient chunks a consumer invocation runs at once (RECIPIENTS_IN_FLIGHT, src/delivery/consumer.ts: recipients
   * in flight, 5,000): its reads come once per wave of them. 100 until 0.13 (chunks counted, not weighed).
   */
  chunksPerWave: 5_000,
  /** Message log shards (LOG_SHARDS). */
  logShards: 16,
  /** 0: one set of shards holds the whole history (LOG_GENERATION_DAYS unset); N: a new set every N days (LOG_GENERATION_DAYS=N). */
  logGenerationDays: 0,
  /** Days the analytics rollups are kept (ANALYTICS_RETENTION_DAYS): with generations, erasure reaches every generation that holds them. */
  analyticsDays: 400,
  /** 1: the log in D1, as up to 0.12 (d1StatementsPerTrigger, d1BytesPerTrigger); 0: in log shards. */
  logInD1: 0,
  /**
   * Milliseconds a provider's API takes to answer one send: not Clarion's to measure, so an
   * assumption (about 200 ms for an email or SMS API); 0 for sends that call no provider (in-app,
   * the sandbox). A consumer invocation has at most `connectionsPerInvocation` of them waiting at
   * once (src/lib/connection-slots.ts), so this and the consumers' concurrency bound the send rate.
   */
  providerMs: 200,
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
  /**
   * With the log in shards, D1 statements come per consumer invocation and per wave of its
   * chunks, not per trigger. Per invocation: the environment's settings (variables,
   * integrations, link secret, whether an endpoint exists: one statement), whether an endpoint
   * takes `trigger.completed` (cached 5 s), and one write, the inline subscribers' upsert
   * (outbound events only with an endpoint; captures only with a sandbox provider). Per wave of
   * `chunksPerWave` chunks: the recipients with their channels and suppressions (one statement).
   * A warm isolate reads each workflow version once. Measured (`BENCH_N=1000`, invocations of
   * 200-300 triggers, 2-3 waves each): 26 statements for 1,000 triggers without the sandbox's
   * captures (0.026 a trigger), 21 once the isolate and the environment are warm. Since stop 56
   * an invocation's one-recipient triggers are one wave: 18-20 cold, 12-15 warm.
   */
  d1ReadsPerInvocation: 2,
  d1WritesPerInvocation: 1,
  d1StatementsPerWave: 1,
  /**
   * What a delivered one-step trigger still leaves in D1 with the log in shards: its `triggers`
   * row (457 in 0.12's measurement), until trigger records move to the log too (then 0).
   */
  d1BytesLeftPerTrigger: 457,
  /**
   * Log bytes per delivered one-step trigger (the message, its queued/sending/sent events, its
   * provider ref, its row in its trigger's index, every index; in whole pages from dbstat):
   * `npm run bench:reads` over 50,000 messages written through LogStore. Add 457 for the trigger
   * record once it lives there.
   */
  logBytesPerTrigger: 1_846,
  /** Log writes per invocation and shard touched: the claim (messages as sending), the results (updates, events, refs). */
  logPhasesPerInvocation: 2,
  /** Provider reports (delivered, opened...) per message, each a call to the ref's shard and one to the message's. */
  reportsPerTrigger: 1,
  logCallsPerReport: 2,
  /**
   * Milliseconds of a shard's thread per trigger written (message, 3 events, ref): bench:reads
   * wrote 3,342 messages/s on one local thread shared with wrangler and the HTTP front, on a
   * loaded two-core machine, so an upper bound.
   */
  logWriteMsPerTrigger: 0.3,
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
/** D1 bytes per trigger and statements per trigger (at `triggersPerInvocation`) in the layout modelled. */
const d1BytesPerTrigger = () => (i.logInD1 ? i.d1BytesPerTrigger : i.d1BytesLeftPerTrigger);
const d1StatementsPerTrigger = (triggersPerInvocation) =>
  i.logInD1
    ? i.d1StatementsPerTrigger
    : (i.d1ReadsPerInvocation + i.d1WritesPerInvocation + Math.ceil(triggersPerInvocation / i.chunksPerWave) * i.d1StatementsPerWave) /
      Math.max(1, triggersPerInvocation);
/** Bytes the D1 history of `historyDays` at rate `r` takes. */
const historyBytes = (r) => r * DAY * i.historyDays * d1BytesPerTrigger();
/** Days a set of log shards covers: the whole history, or one generation. */
const shardDays = () => (i.logGenerationDays > 0 ? Math.min(i.logGenerationDays, i.historyDays) : i.historyDays);
/** Days of history the log holds at rate `r` before its shards are full (Infinity with generations: each is a new set). */
const logDaysHeld = (r) => (i.logGenerationDays > 0 ? Infinity : (i.logShards * i.logObjectBytes) / (r * DAY * i.logBytesPerTrigger));

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
  const triggersPerInvocation = r / invocationsPerSecond;
  const d1Statements = r * d1StatementsPerTrigger(triggersPerInvocation);
  const logShardsPerInvocation = Math.min(i.logShards, triggersPerInvocation);
  const logDeliveryCallsPerShard = i.logInD1 ? 0 : (invocationsPerSecond * i.logPhasesPerInvocation * logShardsPerInvocation) / i.logShards;
  const logReportCallsPerShard = i.logInD1 ? 0 : (r * i.reportsPerTrigger * i.logCallsPerReport) / i.logShards;
  // Provider calls waiting at once: each trigger's send holds a connection for providerMs, and
  // the consumers of all queues together hold at most queues × consumerConcurrency × 6.
  const callsInFlight = (r * i.providerMs) / 1000;
  const subrequestsPerInvocation =
    shardsPerInvocation * i.objectCallsPerShard + (i.logInD1 ? 0 : i.logPhasesPerInvocation * logShardsPerInvocation);
  const log = i.logInD1
    ? {}
    : {
        "log shard (requests/s per object)": (logDeliveryCallsPerShard + logReportCallsPerShard) / i.objectRequestsPerSecond,
        "log shard (its thread's time writing)": ((r / i.logShards) * i.logWriteMsPerTrigger) / 1000,
        "log shard (bytes of history per object)": (r * DAY * shardDays() * i.logBytesPerTrigger) / i.logShards / i.logObjectBytes,
        // An unfiltered page of GET /v1/messages asks every shard of a set (one generation's) from one invocation.
        "unfiltered page (subrequests, per generation)": i.logShards / i.subrequestsPerInvocation,
      };
  return {
    figures: {
      acceptCallsPerShard,
      deliveryCallsPerShard,
      messagesPerSecond,
      triggersPerMessage: r / messagesPerSecond,
      invocationsPerSecond,
      triggersPerInvocation,
      callsInFlight,
      d1Statements,
      logDeliveryCallsPerShard,
      logReportCallsPerShard,
      subrequestsPerInvocation,
    },
    shares: {
      "ledger shard (requests/s per object)": (acceptCallsPerShard + deliveryCallsPerShard) / i.objectRequestsPerSecond,
      "Queues (messages/s per queue)": messagesPerSecond / i.queues / i.queueMessagesPerSecond,
      "D1 (queries/s per database)": d1Statements / i.d1Databases / i.d1QueriesPerSecond,
      // What historyDays of the log take, against the databases' size: a rate that fills them
      // before the oldest rows expire is not sustainable either.
      "D1 (bytes of history per database)": historyBytes(r) / i.d1Databases / i.d1Bytes,
      "consumer invocation (subrequests)": subrequestsPerInvocation / i.subrequestsPerInvocation,
      "provider calls (consumers' connections)": callsInFlight / (i.queues * i.consumerConcurrency * i.connectionsPerInvocation),
      ...log,
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
  `  provider calls waiting     ${fmt(f.callsInFlight)} at ${i.providerMs} ms a call (limit ${fmt(i.queues * i.consumerConcurrency * i.connectionsPerInvocation)}: ${i.queues} queues × ${i.consumerConcurrency} consumers × ${i.connectionsPerInvocation} connections)`,
);
console.log(
  `  triggers per invocation    ${fmt(f.triggersPerInvocation)} (subrequests ${fmt(f.subrequestsPerInvocation)} of ${fmt(i.subrequestsPerInvocation)})`,
);
console.log(
  `  D1 statements/s            ${fmt(f.d1Statements)} (${(f.d1Statements / i.target).toFixed(3)} a trigger; limit ${fmt(i.d1Databases * i.d1QueriesPerSecond)} over ${i.d1Databases} database(s))`,
);
const days = (d) => (d === Infinity ? "all" : d >= 1 ? `${d.toFixed(1)} days` : `${(d * 24).toFixed(1)} hours`);
const d1Days = d1BytesPerTrigger() ? (i.d1Databases * i.d1Bytes) / (i.target * DAY * d1BytesPerTrigger()) : Infinity;
console.log(
  `  D1 history                 ${(historyBytes(i.target) / 1e9).toLocaleString("en-US", { maximumFractionDigits: 1 })} GB for ${i.historyDays} days (${fmt((i.d1Databases * i.d1Bytes) / 1e9)} GB over ${i.d1Databases} database(s): ${days(d1Days)} held)`,
);
if (!i.logInD1) {
  const logBytes = i.target * DAY * i.historyDays * i.logBytesPerTrigger;
  console.log(
    `  log calls per shard/s      ${fmt(f.logDeliveryCallsPerShard)} delivery + ${fmt(f.logReportCallsPerShard)} reports (limit ${fmt(i.objectRequestsPerSecond)})`,
  );
  console.log(
    `  log history                ${fmt(logBytes / 1e9)} GB for ${i.historyDays} days over ${fmt(i.logShards)} shards${i.logGenerationDays > 0 ? ` per ${i.logGenerationDays}-day generation (${fmt(Math.ceil(i.historyDays / i.logGenerationDays) * i.logShards)} objects)` : ""}: ${days(Math.min(logDaysHeld(i.target), d1Days === Infinity ? Infinity : d1Days))} held (log ${days(logDaysHeld(i.target))})`,
  );
}
if (!i.logInD1) {
  // What reads cost: not a load on a resource (they do not bound the rate), but objects asked per request.
  const generations = i.logGenerationDays > 0 ? Math.ceil(i.historyDays / i.logGenerationDays) + 1 : 1;
  const erased = i.logGenerationDays > 0 ? Math.ceil(Math.max(i.historyDays, i.analyticsDays) / i.logGenerationDays) + 1 : 1;
  const rangeDays = Math.floor((0.7 * i.subrequestsPerInvocation) / i.logShards) * (i.logGenerationDays || i.historyDays);
  console.log(
    `  reads (objects asked)      unfiltered page ${fmt(i.logShards)} per generation walked; a subscriber's page or feed counts ${fmt(generations)} (one per generation kept), their erasure ${fmt(erased)} (rollups' generations too), an environment's deletion ${fmt(erased * i.logShards)}; a trigger's counts 1 per generation since its acceptance; stats or analytics ${fmt(i.logShards)} per generation of the range (${fmt(i.logShards * generations)} for all ${i.historyDays} days; ranges up to ${rangeDays >= i.historyDays ? "all" : fmt(rangeDays)} days stay under 70 % of subrequests)`,
  );
}
if (!i.logInD1) {
  // When generations are needed: one set of shards must hold the whole history at 70 % of an object.
  const daysPerSet = (0.7 * i.logShards * i.logObjectBytes) / (i.target * DAY * i.logBytesPerTrigger);
  console.log(
    daysPerSet >= i.historyDays
      ? `  generations                not needed: one set of ${fmt(i.logShards)} shards holds ${days(daysPerSet)} at 70 % (LOG_GENERATION_DAYS may stay unset)`
      : `  generations                needed: one set of ${fmt(i.logShards)} shards holds ${days(daysPerSet)} at 70 %, under ${i.historyDays} days: LOG_GENERATION_DAYS ≤ ${Math.max(1, Math.floor(daysPerSet))}${daysPerSet < 1 ? " and more shards" : ""}${i.logGenerationDays > 0 ? ` (modelled: ${i.logGenerationDays})` : ""}`,
  );
}
for (const [name, share] of Object.entries(at.shares)) console.log(`  ${name.padEnd(46)} ${(share * 100).toFixed(0)} %`);

// The ceiling: the highest rate at which every resource stays under its limit.
let low = 0;
let high = 10_000_000;
while (high - low > 1) {
  const mid = Math.floor((low + high) / 2);
  if (Math.max(...Object.values(load(mid).shares)) <= 1) low = mid;
  else high = mid;
}
const first = Object.entries(load(high).shares).sort(([, a], [, b]) => b - a)[0][0];
const highest = Object.entries(at.shares).sort(([, a], [, b]) => b - a)[0];
console.log(`\nCeiling of this deployment: ${fmt(low)} triggers/s; the first resource to saturate: ${first}.`);
console.log(`At ${fmt(i.target)}/s the busiest resource is ${highest[0]} at ${(highest[1] * 100).toFixed(0)} %.`);
// The delivery queues that keep their messages/s and their consumers' provider calls at 70 % at the
// target (both loads are shared evenly by the queues), bound with `npm run deploy -- --delivery-queues N`.
const queuesNeeded = Math.ceil(
  (i.queues * Math.max(at.shares["Queues (messages/s per queue)"], at.shares["provider calls (consumers' connections)"])) / 0.7,
);
if (queuesNeeded > i.queues) {
  console.log(
    `Delivery queues: ${fmt(queuesNeeded)} keep the Queues and the provider calls under 70 % at ${fmt(i.target)}/s (modelled: ${i.queues}; npm run deploy -- --delivery-queues ${queuesNeeded} binds them, --queues=${queuesNeeded} models them).`,
  );
}
if (low < i.target && i.logInD1) {
  const d1Needed = Math.ceil(f.d1Statements / i.d1QueriesPerSecond);
  const d1ForHistory = Math.ceil(historyBytes(i.target) / i.d1Bytes);
  console.log(
    `To reach ${fmt(i.target)}/s: D1 needs ${fmt(d1Needed)} database(s) for its statements and ${fmt(d1ForHistory)} for ${i.historyDays} days of history at these per-trigger costs (docs/architecture.md), or a log that leaves D1.`,
  );
}
