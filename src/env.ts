import type { DeadLetter, DeliveryJob } from "./jobs/job";
import type { WebhookJob } from "./jobs/webhook-job";

/**
 * The bindings of wrangler.toml as `wrangler types` writes them (worker-configuration.d.ts, the
 * global `WranglerBindings`; `npm run types` regenerates it, `npm test` checks it is current),
 * with what the generator cannot know: the body each queue carries, and the vars and secrets
 * set outside wrangler.toml (`.dev.vars`, `wrangler secret`, the dashboard).
 */
export interface Bindings
  extends Omit<
    WranglerBindings,
    | "ASSETS"
    | "LEDGER_SHARDS"
    | "LOG_SHARDS"
    | "ARCHIVE_TO_R2"
    | "DELIVERY_QUEUE_0"
    | "DELIVERY_QUEUE_1"
    | "DEAD_LETTER_QUEUE"
    | "WEBHOOK_QUEUE"
  > {
  /** The dashboard's static build (wrangler.toml [assets]); absent in the Workers test runtime. */
  ASSETS?: Fetcher;
  DELIVERY_QUEUE_0: Queue<DeliveryJob>;
  /**
   * wrangler.toml binds a second, and `npm run deploy -- --delivery-queues N` binds N (or only the
   * first): read them all through `deliveryQueues()` (jobs/queues.ts), never by name.
   */
  DELIVERY_QUEUE_1?: Queue<DeliveryJob>;
  DEAD_LETTER_QUEUE: Queue<DeadLetter>;
  /** Outbound event webhooks: dispatch and delivery jobs (jobs/webhook-job.ts). */
  WEBHOOK_QUEUE: Queue<WebhookJob>;
  /** Where this deployment is reached from outside: tracking links point here. */
  PUBLIC_URL: string;
  /**
   * Origins (comma-separated, e.g. `https://clarion-dashboard.pages.dev`) of a dashboard deployed
   * apart from the Worker, allowed to call the API cross-origin (CORS). Unset: none.
   */
  DASHBOARD_ORIGINS?: string;
  /** Base64 AES-256 key for integration credentials and signed tracking links. */
  ENCRYPTION_KEY?: string;
  /**
   * "true" only for local development and tests: integrations, chat webhooks and push endpoints
   * may point at http://, loopback and private addresses (never link-local or cloud metadata).
   */
  ALLOW_PRIVATE_DESTINATIONS?: string;
  /** Bearer token of `GET /metrics` (Prometheus); unset, the endpoint answers 404. */
  METRICS_TOKEN?: string;
  /** SHA-256 (hex) of the admin credential; comma-separated while an old one is phased out. Unset: the admin API refuses everyone. */
  ADMIN_KEY_HASH?: string;
  /** Trigger ledger shards (default 32); see docs/architecture.md before changing it. */
  LEDGER_SHARDS?: string;
  /** The shard count before the last change, asked too until its triggers expire. */
  LEDGER_SHARDS_PREVIOUS?: string;
  /** Message log shards (default 16); see docs/architecture.md before changing it. */
  LOG_SHARDS?: string;
  /** The log shard count before the last change, read too until its rows expire. */
  LOG_SHARDS_PREVIOUS?: string;
  /** Days each generation of log shards covers (a new set of shards per period); unset or 0: one set for all history. Set before the first trigger. */
  LOG_GENERATION_DAYS?: string;
  /** "true": expired log rows are archived to the ARCHIVE bucket (NDJSON) before they are deleted. */
  ARCHIVE_TO_R2?: string;
  /** Milliseconds accepted jobs gather in a ledger's outbox before one sendBatch (default 20). */
  OUTBOX_FLUSH_MS?: string;
  /** Seconds without progress before a live trigger's unfinished work is enqueued again (default 120). */
  WATCHDOG_STALL_SECONDS?: string;
  /** Hours a finished trigger is remembered, for idempotent replays (default 24). */
  IDEMPOTENCY_WINDOW_HOURS?: string;
  /** Days messages, their events and finished triggers are kept in D1 (default 30). */
  RETENTION_DAYS?: string;
  /** Days audit log entries are kept, whatever RETENTION_DAYS says (default 365). */
  AUDIT_RETENTION_DAYS?: string;
  /** Days the analytics rollups are kept, past the messages they count (default 400). */
  ANALYTICS_RETENTION_DAYS?: string;
  /** "off" skips keeping the rollups: only to measure their cost (bench:delivery), never in a deployment. */
  ANALYTICS_ROLLUPS?: string;
  /** Days sandbox captures are kept (default 7). */
  SANDBOX_RETENTION_DAYS?: string;
  /** Rows of each table one retention run deletes at most (default 5000). */
  RETENTION_MAX_ROWS?: string;
  /** Webhook endpoints one environment may have (default 20): each event is one signed POST per endpoint. */
  WEBHOOK_ENDPOINTS_MAX?: string;
  /** JSON: rates per environment slug (docs/guides/rate-limits.md); each rate needs its `RATE_LIMIT_<n>_PER_<p>S` binding. */
  RATE_LIMITS?: string;
  /** Both set: Upstash Redis counts the rate limits (global, exact) instead of the bindings. */
  UPSTASH_REDIS_REST_URL?: string;
  UPSTASH_REDIS_REST_TOKEN?: string;
}

/** Who makes a request's changes, as workflow versions record it: a key by id and name, never the key. */
export type Actor =
  | { type: "key"; id: string; name: string }
  | { type: "dashboard"; id: string; name: string }
  | { type: "admin"; id: null; name: string };

/** The request's environment's repositories: features/data.ts fills this in by declaration merging. */
export interface EnvironmentData {
  /** The environment every repository of it is bound to: a route's only way to name its environment. */
  readonly environmentId: string;
}

export interface Variables {
  /** Repositories bound to the request's environment, set by the auth middleware: no query of a route can name another environment. */
  data: EnvironmentData;
  actor: Actor;
  /** Clarion's id of this request (lib/middleware/request-id.ts). */
  requestId: string;
  /** The caller's own `X-Request-Id`, when well-formed: recorded beside `requestId`, never instead of it. */
  clientRequestId?: string;
  /** The request's `Idempotency-Key`, when it sent one (see `lib/middleware/idempotency.ts`). */
  idempotencyKey?: string;
  /** Fields of this route's answer that hold a secret, never stored for a replay (see `lib/secret-fields.ts`). */
  responseSecrets?: readonly string[];
}

export type AppEnv = { Bindings: Bindings; Variables: Variables };
