import type { Bindings } from "../../env";
import { LogStore } from "./log-store";

/**
 * The one way to the message log's shards for code outside the Durable Object clients, as
 * `unscopedDb` is to D1: a LogStore is no one environment's (each call names its environment),
 * so the callers are the ones that name theirs: features/data.ts binding a request's Data, the
 * cron, delivery's batch context, the Inbox socket, tracking links and provider callbacks (they
 * find their environment from what they are sent), deleting an environment and erasing a
 * subscriber. Only src/db/ and durable-objects/client/ construct one (.dependency-cruiser.cjs,
 * rule log-store-only-through-its-entry).
 */
export const unscopedLogs = (env: Bindings): LogStore => new LogStore(env);
