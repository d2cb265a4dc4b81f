// The layers of src/ and the one direction their imports may point. `npm run lint:deps` checks
// them (and `npm test` runs it first). docs/architecture.md ("Layers") explains the layout.
//
//   entry      src/index.ts, src/app.ts
//   novu       src/novu/**                            Novu's API and Inbox on /novu, over the features; only app.ts imports it
//   features   src/features/**                        the HTTP API, one folder per resource
//   delivery   src/delivery/**, src/durable-objects/** the queue consumer and its storage
//   jobs       src/jobs/**                            the queue jobs and trigger record delivery and the objects share
//   engine     src/engine/**, src/providers/**         pure step logic; one adapter per provider
//   base       src/db/**, src/lib/**, src/contract/**  D1 schema and shared queries, helpers, the API vocabulary
//   bindings   src/env.ts                              the Worker's bindings (from `wrangler types`); imports types only
//
// An import may point down or stay within its layer, never up. Type-only imports count too: a
// type is part of a module's language, and a lower layer that needs it has to own it.

/** Paths of one layer and of every layer above it. */
const ENTRY = "^src/(index|app)\\.ts$";
const NOVU = "^src/novu/";
const FEATURES = "^src/features/";
const DELIVERY = "^src/(delivery|durable-objects)/";
const JOBS = "^src/jobs/";
const ENGINE = "^src/(engine|providers)/";
const BASE = "^src/(db|lib|contract)/";

/**
 * Where D1 is queried: db/ (the schema, the client and the queries shared across layers), each
 * feature's repositories (`repository.ts`, `<concern>-repository.ts`) and delivery's own writes.
 * Everything else reaches rows through a repository bound to one environment (features/data.ts).
 */
const DATA_ACCESS = ["^src/db/", "^src/(features|novu)/.+/[a-z0-9-]*repository\\.ts$", "^src/delivery/writes/"];

/** The step and channel model: zod schemas only, no imports from src/. */
const STEP_MODEL = "^src/engine/steps\\.ts$";

module.exports = {
  forbidden: [
    {
      name: "no-cycles",
      comment:
        "A cycle makes two modules one: neither can be read, tested or moved alone, and module " +
        "initialisation order starts to matter. Type-only cycles count too: the Durable Object " +
        "namespaces are typed by worker-configuration.d.ts (`wrangler types`), outside src/, so " +
        "env.ts names no object and needs no exception.",
      severity: "error",
      from: { path: "^src/" },
      to: { circular: true },
    },
    {
      name: "entry-is-the-top",
      comment: "index.ts and app.ts wire everything together; nothing inside the app may import the wiring back.",
      severity: "error",
      from: { path: "^src/", pathNot: ENTRY },
      to: { path: ENTRY },
    },
    {
      name: "novu-only-from-app",
      comment:
        "The Novu compatibility layer translates Novu's API and Inbox into Clarion's features; app.ts mounts it " +
        "on /novu. Nothing else may lean on it: Clarion's own API must stand without it.",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/app\\.ts$", NOVU] },
      to: { path: NOVU },
    },
    {
      name: "event-log-below-endpoints",
      comment:
        "Outbound events are one room, features/events/: the event log and emission at its root, the webhook " +
        "endpoints that events are carried to in endpoints/. Endpoints read the log's events; only the log's " +
        "routes look back (a replay names endpoints), so the two halves cannot loop again.",
      severity: "error",
      from: { path: "^src/features/events/[^/]+\\.ts$", pathNot: "^src/features/events/routes\\.ts$" },
      to: { path: "^src/features/events/endpoints/" },
    },
    {
      name: "features-are-above-delivery",
      comment:
        "Features answer HTTP requests and may hand work to delivery; delivery runs without a request " +
        "and must not depend on route code. What both need lives below (db/queries, contract, engine).",
      severity: "error",
      from: { path: [DELIVERY, JOBS, ENGINE, BASE] },
      to: { path: FEATURES },
    },
    {
      name: "delivery-is-above-engine",
      comment:
        "The engine and the providers are pure step logic and stateless adapters: they must not know " +
        "about queues, the consumer or Durable Objects.",
      severity: "error",
      from: { path: [JOBS, ENGINE, BASE] },
      to: { path: DELIVERY },
    },
    {
      name: "jobs-are-above-engine",
      comment:
        "The queue jobs and the trigger record are what delivery and the Durable Objects exchange; the engine, " +
        "the providers and the base below them know nothing of queues.",
      severity: "error",
      from: { path: [ENGINE, BASE] },
      to: { path: JOBS },
    },
    {
      name: "engine-is-above-base",
      comment: "db, lib and contract are the bottom: shared by everyone, so they may not import anything that uses them.",
      severity: "error",
      from: { path: BASE },
      to: { path: ENGINE, pathNot: STEP_MODEL },
    },
    {
      name: "engine-is-not-storage",
      comment:
        "The engine and the providers are pure: no D1, not even a type from db/. A type both the engine " +
        "and the schema need (stored preferences, in-app content) lives in contract/ and the schema imports it.",
      severity: "error",
      from: { path: ENGINE },
      to: { path: "^src/db/" },
    },
    {
      name: "schema-types-steps-only",
      comment:
        "The one exception to the rule above: the drizzle schema types the workflows.steps JSON column " +
        "with the engine's Step type. A type is erased at run time, so it must stay a type-only import.",
      severity: "error",
      from: { path: BASE },
      to: { path: STEP_MODEL, dependencyTypesNot: ["type-only"] },
    },
    {
      name: "durable-objects-do-not-import-delivery",
      comment:
        "Delivery drives the Durable Objects through their RPC clients; the objects know delivery only " +
        "through the jobs and trigger records they store and enqueue (src/jobs/), so the arrow points one way.",
      severity: "error",
      from: { path: "^src/durable-objects/" },
      to: { path: "^src/delivery/" },
    },
    {
      name: "objects-only-through-their-clients",
      comment:
        "Features and delivery reach the Durable Objects through their clients (durable-objects/client/, " +
        "inbox-socket/client.ts), which own naming, sharding and batching and answer in plain types; " +
        "ledger/claims.ts is the delivery-op vocabulary both sides speak. Building a stub is refused by " +
        "Biome (lint/durable-object-stubs.grit).",
      severity: "error",
      from: { path: [NOVU, FEATURES, "^src/delivery/"] },
      to: {
        path: "^src/durable-objects/",
        pathNot: [
          "^src/durable-objects/client/",
          "^src/durable-objects/inbox-socket/client\\.ts$",
          "^src/durable-objects/ledger/claims\\.ts$",
        ],
      },
    },
    {
      name: "jobs-import-neither-delivery-nor-objects",
      comment:
        "src/jobs/ (the queue jobs, their packing and queues, the trigger record) is shared by delivery and the " +
        "Durable Objects; importing either side back would turn the one-way arrows into a cycle.",
      severity: "error",
      from: { path: JOBS },
      to: { path: "^src/(delivery|durable-objects|features|novu|engine|providers)/" },
    },
    {
      name: "contract-stands-alone",
      comment:
        "contract/ is the API vocabulary that the dashboard bundles too: it may import other contract " +
        "modules and npm packages, nothing else of src/.",
      severity: "error",
      from: { path: "^src/contract/" },
      to: { path: "^src/", pathNot: "^src/contract/" },
    },
    {
      name: "bindings-import-types-only",
      comment:
        "env.ts describes the bindings every layer reads (c.env). It names the queue jobs only as " +
        "types, so it adds no runtime arrow upward; a value import would.",
      severity: "error",
      from: { path: "^src/env\\.ts$" },
      to: { path: "^src/", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "bindings-name-only-jobs",
      comment:
        "The only upward types env.ts may name: the bodies of its queues. The Durable Object classes come from worker-configuration.d.ts.",
      severity: "error",
      from: { path: "^src/env\\.ts$" },
      to: { path: "^src/", pathNot: JOBS },
    },
    {
      name: "drizzle-only-in-data-access",
      comment:
        "A query outside a repository is where an environment predicate gets forgotten: a route or a " +
        "service holds a repository bound to its environment (c.var.data) and cannot name a table. " +
        "Types (a status union, BatchItem) may be imported anywhere: a type cannot run a query.",
      severity: "error",
      from: { path: "^src/", pathNot: DATA_ACCESS },
      to: { path: ["(^|/)node_modules/drizzle-orm/", "^src/db/schema/"], dependencyTypesNot: ["type-only"] },
    },
    {
      name: "d1-handle-only-in-data",
      comment:
        "One way to reach data: a route or a service holds its environment's Data (c.var.data, or " +
        "dataOf(env, environmentId) where there is no request) and cannot build a D1 handle of its own " +
        "(createDb). Only db/ and features/data.ts build one; work that is no one environment's (the key " +
        "lookup, environments, sessions, sweeps, the queues' batches) goes through db/unscoped.ts. " +
        "`import type { Db }` stays free: a type cannot run a query.",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/db/", "^src/features/data\\.ts$"] },
      to: { path: "^src/db/client\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "log-store-only-through-its-entry",
      comment:
        "The message log's shards are reached as D1 is: a LogStore is built only by the Durable Object " +
        "clients (durable-objects/client/unscoped-logs.ts is the entry point everyone else calls) and db/, " +
        "so a new caller shows up as a use of unscopedLogs. `import type { LogStore }` stays free.",
      severity: "error",
      from: { path: "^src/", pathNot: ["^src/db/", "^src/durable-objects/client/"] },
      to: { path: "^src/durable-objects/client/log-store\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "unscoped-data-is-named",
      comment:
        "db/unscoped.ts is D1 for work that is no one environment's. Each user is named here, so taking " +
        "it instead of c.var.data is a decision a review sees: the key lookup, environments and dashboard " +
        "sessions (features/environments/), Idempotency-Key answers, the admin audit log, promotions, " +
        "provider callbacks and tracking links (they find their environment from what they are sent), the " +
        "webhook queue's consumer, test send and sweeps, the cron, the deployment-wide /metrics scrape, the Inbox's session lookups, and the " +
        "layers below features/ that cannot hold Data (delivery's batch context, the Inbox socket object).",
      severity: "error",
      from: {
        path: "^src/",
        pathNot: [
          "^src/db/",
          "^src/index\\.ts$",
          "^src/features/environments/",
          "^src/lib/middleware/idempotency\\.ts$",
          "^src/features/audit/routes\\.ts$",
          "^src/features/promotions/(routes|promote)\\.ts$",
          "^src/features/provider-callbacks/routes\\.ts$",
          "^src/features/tracking/routes\\.ts$",
          "^src/features/metrics/repository\\.ts$",
          "^src/features/events/endpoints/(consumer|routes|sweep)\\.ts$",
          "^src/novu/socket\\.ts$",
          "^src/novu/inbox/(routing|session-routes)\\.ts$",
          "^src/delivery/context\\.ts$",
          "^src/durable-objects/inbox-socket/inbox-socket\\.ts$",
        ],
      },
      to: { path: "^src/db/unscoped\\.ts$" },
    },
    {
      name: "src-not-to-tests",
      comment: "Production code never imports tests, benchmarks or scripts: they would be bundled into the Worker.",
      severity: "error",
      from: { path: "^src/" },
      to: { path: "^(test|bench|scripts)/" },
    },
    {
      name: "not-to-unresolvable",
      comment: "An import that resolves to nothing fails at bundle time; catch it here first.",
      severity: "error",
      from: { path: "^src/" },
      to: { couldNotResolve: true, pathNot: "^cloudflare:" },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Read TypeScript before compilation, so `import type` arrows are seen and checked too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".js", ".mjs", ".json"],
    },
  },
};
