import type { LogStore } from "../durable-objects/client/log-store";
import type { EraseEnvironmentJob } from "../jobs/job";
import { retryDelaySeconds } from "./backoff";

type Job = { message: Message<unknown>; job: EraseEnvironmentJob };

/**
 * Erasure jobs of deleted environments: each asks its slice of the log's shards for one bounded
 * pass, after which a shard with rows left goes on by its own alarm. A pass is idempotent, so a
 * job one of whose shards failed is retried whole by the Queue.
 */
export async function eraseEnvironments(logs: LogStore, jobs: readonly Job[]): Promise<void> {
  await Promise.all(
    jobs.map(async ({ message, job }) => {
      try {
        const pass = await logs.eraseEnvironment(job.environmentId, job.shards);
        console.log(
          JSON.stringify({ level: "info", event: "environment_erasure", environmentId: job.environmentId, ...job.shards, ...pass }),
        );
        message.ack();
      } catch (error) {
        console.log(
          JSON.stringify({ level: "warn", event: "erasure_failed", id: message.id, attempts: message.attempts, error: String(error) }),
        );
        message.retry({ delaySeconds: retryDelaySeconds(message.attempts) });
      }
    }),
  );
}
