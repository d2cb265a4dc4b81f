// GET /metrics: off without METRICS_TOKEN, behind it otherwise, and its figures are the API's.
import { env, runInDurableObject } from "cloudflare:test";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { describe, expect, it } from "vitest";
import type { Message } from "../../src/features/messages/schemas";
import { createWorkflow } from "../e2e/helpers";
import { createSandboxEnvironment, unique } from "../factories";
import { triggerDelivered } from "../held-triggers";
import { acceptThenCrash, deliverHeldJobs, ledgerOf } from "../ledger";
import { api } from "../request";
import { getMetrics, METRICS_TOKEN, sampleOf, scrape } from "./scrape";

const problem = async (res: Response) => ({ status: res.status, type: res.headers.get("content-type"), body: await res.json() });

describe("GET /metrics", () => {
  it("is not there (404) while METRICS_TOKEN is unset", async () => {
    const res = await getMetrics(`Bearer ${METRICS_TOKEN}`, null);
    expect(await problem(res)).toMatchObject({ status: 404, type: "application/problem+json", body: { code: "not_found" } });
  });

  it.each([
    ["no Authorization", undefined],
    ["a wrong token", "Bearer not-the-token"],
    ["the token as an API key", `ApiKey ${METRICS_TOKEN}`],
    ["a token that only starts right", `Bearer ${METRICS_TOKEN}x`],
  ])("refuses %s with 401", async (_, authorization) => {
    const res = await getMetrics(authorization);
    expect(await problem(res)).toMatchObject({ status: 401, type: "application/problem+json", body: { code: "unauthorized" } });
  });

  it("answers in the Prometheus text format with HELP and TYPE for every family", async () => {
    const res = await getMetrics(`Bearer ${METRICS_TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const families = await scrape();
    const typed = [...families].filter(([, f]) => f.type !== "UNTYPED");
    expect(Object.fromEntries(typed.map(([name, f]) => [name, f.type]))).toEqual({
      clarion_triggers_accepted_total: "COUNTER",
      clarion_messages_total: "COUNTER",
      clarion_dead_letters_total: "COUNTER",
      clarion_send_latency_seconds: "HISTOGRAM",
      clarion_webhook_deliveries_total: "COUNTER",
      clarion_retries_total: "COUNTER",
      clarion_queue_lag_seconds: "GAUGE",
    });
    expect(typed.every(([, f]) => f.help.length > 0)).toBe(true);
  });

  it("counts what the messages API shows of a seeded run, under the environment's slug", async () => {
    const { id, key, slug } = await createSandboxEnvironment();
    const workflow = unique("metered");
    await createWorkflow(key, { key: workflow, steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hi" } }] });
    const transactions = [
      await triggerDelivered(key, { workflow, to: { subscriberId: unique("a"), email: "a@example.com" } }),
      await triggerDelivered(key, { workflow, to: { subscriberId: unique("b"), email: "b@example.com" } }),
      // No address: its message is skipped, not sent.
      await triggerDelivered(key, { workflow, to: { subscriberId: unique("c") } }),
    ];
    const listed = await api<{ data: Message[] }>(key, "GET", "/v1/messages?limit=200");
    const messages = listed.body.data.filter((m) => transactions.includes(m.transactionId));
    const withStatus = (status: string) => messages.filter((m) => m.status === status).length;
    expect(withStatus("sent") + withStatus("skipped")).toBe(3);

    const now = Date.now();
    const attempts: [number, "succeeded" | "failed"][] = [
      [1, "succeeded"],
      [1, "succeeded"],
      [1, "failed"],
      [2, "succeeded"],
    ];
    for (const [attempt, status] of attempts) {
      await env.DB.prepare(
        "INSERT INTO webhook_attempts (id, environment_id, endpoint_id, event_id, event_type, attempt, status, latency_ms, created_at) VALUES (?, ?, 'we_1', 'evt_1', 'message.sent', ?, ?, 12, ?)",
      )
        .bind(unique("wa"), id, attempt, status, now)
        .run();
    }

    const families = await scrape();
    const ours = { environment: slug };
    expect(sampleOf(families, "clarion_triggers_accepted_total", { ...ours, workflow })).toBe(3);
    const sent = { ...ours, channel: "email", provider: "sandbox-email" };
    expect(sampleOf(families, "clarion_messages_total", { ...sent, status: "sent" })).toBe(withStatus("sent"));
    expect(sampleOf(families, "clarion_messages_total", { ...ours, channel: "email", status: "skipped" })).toBe(withStatus("skipped"));
    expect(sampleOf(families, "clarion_messages_total", { ...ours, status: "failed" })).toBe(withStatus("failed"));
    expect(sampleOf(families, "clarion_send_latency_seconds_count", sent)).toBe(withStatus("sent"));
    expect(sampleOf(families, "clarion_send_latency_seconds_bucket", { ...sent, le: "+Inf" })).toBe(withStatus("sent"));
    expect(sampleOf(families, "clarion_dead_letters_total", ours)).toBe(0);
    expect(sampleOf(families, "clarion_webhook_deliveries_total", { ...ours, outcome: "succeeded" })).toBe(3);
    expect(sampleOf(families, "clarion_webhook_deliveries_total", { ...ours, outcome: "failed" })).toBe(1);
    expect(sampleOf(families, "clarion_retries_total", { ...ours, kind: "webhook" })).toBe(1);
    expect(sampleOf(families, "clarion_queue_lag_seconds", {})).toBeGreaterThanOrEqual(0);
  });

  it("measures queue lag as the age of the oldest due trigger the consumer has not fanned out", async () => {
    const { id, key } = await createSandboxEnvironment();
    const workflow = unique("lagging");
    await createWorkflow(key, { key: workflow, steps: [{ id: "mail", type: "email", template: { subject: "s", text: "Hi" } }] });
    const waiting = await acceptThenCrash(id, workflow, { subscriberId: unique("l"), email: "l@example.com" });
    // Accepted a minute and a half ago, its job still in the ledger's outbox.
    await runInDurableObject(ledgerOf(id, waiting.transactionId), (_ledger: TriggerLedger, state) =>
      state.storage.sql.exec("UPDATE triggers SET accepted_at = accepted_at - 90000 WHERE tx = ?", waiting.transactionId),
    );
    expect(sampleOf(await scrape(), "clarion_queue_lag_seconds", {})).toBeGreaterThanOrEqual(90);
    await deliverHeldJobs(id, waiting.transactionId);
    expect(sampleOf(await scrape(), "clarion_queue_lag_seconds", {})).toBeLessThan(90);
  });
});
