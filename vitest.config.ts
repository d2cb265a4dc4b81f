import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { createHash } from "node:crypto";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";
import { unstable_readConfig } from "wrangler";

/**
 * wrangler.toml's Queue consumers, each handed its batch at once: a deployment waits up to a second
 * to fill a batch, which in tests is only a second of waiting per hop (trigger → fan-out → send).
 * Batch size, retries and dead-letter queue stay as configured.
 */
interface WranglerConsumer {
  queue: string;
  max_batch_size?: number;
  max_retries?: number;
  dead_letter_queue?: string;
}
const consumers: WranglerConsumer[] = unstable_readConfig({ config: "wrangler.toml" }).queues.consumers ?? [];
const queueConsumers = Object.fromEntries(
  consumers.map((c) => [
    c.queue,
    { maxBatchSize: c.max_batch_size, maxBatchTimeout: 0, maxRetries: c.max_retries, deadLetterQueue: c.dead_letter_queue },
  ]),
);

/**
 * One delivery queue more than wrangler.toml binds, consumed with the first's settings, as
 * `npm run deploy -- --delivery-queues 3` would bind it: every delivery test then sends jobs to
 * a queue the Worker finds only by looking (src/jobs/queues.ts), and consumes them from it.
 */
const EXTRA_DELIVERY_QUEUE = "clarion-delivery-2";
queueConsumers[EXTRA_DELIVERY_QUEUE] = { ...queueConsumers["clarion-delivery-0"]! };

export default defineConfig({
  plugins: [
    cloudflareTest(async ({ inject }) => ({
      wrangler: { configPath: "./wrangler.toml" },
      miniflare: {
        queueConsumers,
        queueProducers: { DELIVERY_QUEUE_2: { queueName: EXTRA_DELIVERY_QUEUE } },
        bindings: {
          TEST_MIGRATIONS: await readD1Migrations(fileURLToPath(new URL("./migrations", import.meta.url))),
          ENCRYPTION_KEY: "Y2xhcmlvbi10ZXN0LWtleS0wMTIzNDU2Nzg5YWJjZGU=",
          // The fake providers listen on 127.0.0.1 (docs/concepts/security.md); tests of the policy turn it off per request.
          ALLOW_PRIVATE_DESTINATIONS: "true",
          FAKE_PROVIDER_URL: inject("fakeProviderUrl"),
          // test/request.ts holds the admin credential this is the hash of.
          // The one origin test/admin/dashboard-session.test.ts expects CORS to allow.
          DASHBOARD_ORIGINS: "https://dashboard.example",
          ADMIN_KEY_HASH: createHash("sha256").update("clarion_admin_testAdminCredential0123456789abcdef").digest("hex"),
          // Tight limits for the environments test/rate-limit/api.test.ts creates with these slugs.
          RATE_LIMITS: JSON.stringify({
            // Only requests that send cf-connecting-ip count per IP: test/preference-links/rate-limit.test.ts does.
            default: { linkIps: "5/60s" },
            "rl-env-a": { environment: "5/60s" },
            "rl-env-b": { environment: "5/60s" },
            "rl-key": { key: "4/60s" },
            "rl-key-shared": { key: "4/60s" },
            "rl-both": { environment: "5/60s", key: "4/60s" },
          }),
        },
        ratelimits: {
          RATE_LIMIT_5_PER_60S: { namespace_id: "9001", simple: { limit: 5, period: 60 } },
          RATE_LIMIT_4_PER_60S: { namespace_id: "9002", simple: { limit: 4, period: 60 } },
        },
      },
    })),
  ],
  test: {
    include: ["test/**/*.test.ts"],
    exclude: ["test/conformance/**", "test/novu-sdk/**", "test/browser/**", "test/scripts/**", "test/docs-examples/**"],
    setupFiles: ["./test/setup.ts"],
    globalSetup: ["./test/global-setup.ts"],
    testTimeout: 30_000,
    // Work the Queue or an alarm started (a consumer still logging) may outlive the file that
    // started it; the pool then closes the file's channel under it. That is the pool's teardown,
    // not a failure of the code under test, so only that error is not counted against the run.
    onUnhandledError: (error) => !(error.name === "EnvironmentTeardownError" && /Closing rpc while/.test(error.message)),
    // One runtime per worker, reused file after file: starting workerd and evaluating the Worker's
    // modules for every file was two thirds of the suite's time. test/setup.ts empties D1 and every
    // Durable Object (alarms included) before each file, so a file still starts from empty storage;
    // only module-level memory (caches keyed by random ids) carries over from file to file.
    isolate: false,
    // One file per core, at least two: a file mostly waits on its own runtime (start-up, D1, Queue hops), not
    // on the CPU, so two files overlap well even on two cores (Vitest's default there is one).
    maxWorkers: Math.max(2, availableParallelism()),
  },
});
