import { createRoute, z } from "@hono/zod-openapi";
import { TriggerStore } from "../../durable-objects/client/trigger-store";
import { unscopedLogs } from "../../durable-objects/client/unscoped-logs";
import { sha256Hex, timingSafeEqual } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { createRouter, problemResponses } from "../../lib/openapi";
import { metricFamilies } from "./families";
import { exposition, PROMETHEUS_CONTENT_TYPE } from "./prometheus";
import { allEnvironments, webhookAttemptCounts } from "./repository";

export const metricsRoutes = createRouter();

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const CODES = ["unauthorized", "not_found"] as const;

const metricsRoute = createRoute({
  method: "get",
  path: "/metrics",
  tags: ["Metrics"],
  summary: "Prometheus metrics",
  description:
    "The deployment's figures in the Prometheus text format (0.0.4), every environment labelled with its slug: triggers accepted, messages by channel, provider and status, send latency, queue lag, webhook deliveries, retries and dead letters. Counters count since 00:00 UTC and start again then. Off (404) unless the secret `METRICS_TOKEN` is set; then only with `Authorization: Bearer <METRICS_TOKEN>`. See docs/guides/observability.md.",
  security: [{ MetricsToken: [] }],
  responses: {
    200: { description: "The scrape", content: { "text/plain": { schema: z.string() } } },
    ...problemResponses(CODES),
  },
  "x-error-codes": [...CODES],
});

/** Compared as digests, so the time taken says nothing about the token, not even its length. */
async function checkToken(expected: string | undefined, authorization: string | undefined, path: string) {
  if (!expected) throw new ApiError("not_found", `No route for GET ${path}.`);
  const given = /^Bearer\s+(.+)$/i.exec(authorization ?? "")?.[1]?.trim() ?? "";
  const [a, b] = await Promise.all([sha256Hex(given), sha256Hex(expected)]);
  if (!timingSafeEqual(a, b)) throw new ApiError("unauthorized", "The metrics need `Authorization: Bearer <METRICS_TOKEN>`.");
}

metricsRoutes.openapi(metricsRoute, async (c) => {
  await checkToken(c.env.METRICS_TOKEN, c.req.header("authorization"), c.req.path);
  const now = Date.now();
  const since = Math.floor(now / DAY_MS) * DAY_MS;
  const [envs, attempts, oldestDue] = await Promise.all([
    allEnvironments(c.env),
    webhookAttemptCounts(c.env, since),
    new TriggerStore(c.env).oldestUnstarted(now),
  ]);
  const logs = unscopedLogs(c.env);
  // One bucket for the whole window: the rows come back already summed per dimension.
  const query = { since, until: now + HOUR_MS, bucketMs: DAY_MS };
  const environments = await Promise.all(
    envs.map(async ({ id, slug }) => ({ slug, rollups: await logs.analytics(id, query, ["counts", "latency", "audience"]) })),
  );
  const slugs = new Map(envs.map((e) => [e.id, e.slug]));
  const text = exposition(metricFamilies({ environments, slugs, attempts, oldestDue, now }));
  return c.text(text, 200, { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": "no-store" });
});
