// Whether an environment's endpoints take an event type: cached per isolate for a few seconds
// (delivery asks once per finish batch), cleared when this isolate changes the endpoints.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Db } from "../../src/db/client";
import { EVENT_TAKEN_TTL_MS, eventTaken } from "../../src/db/queries/fact-events";
import type { WebhookEndpointCreated } from "../../src/features/events/endpoints/schemas";
import { createEnvironment } from "../factories";
import { api } from "../request";

/** D1 whose statements prepared are counted: the reads `eventTaken` made. */
function countingDb(reads: { n: number }): Db {
  const d1 = new Proxy(env.DB, {
    get(target, key) {
      if (key === "prepare")
        return (text: string) => {
          reads.n++;
          return target.prepare(text);
        };
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return { $client: d1 } as unknown as Db;
}

describe("eventTaken", () => {
  it("reads D1 once per environment and type within its TTL, and again once an endpoint changed here", async () => {
    const { id, key } = await createEnvironment();
    const reads = { n: 0 };
    const db = countingDb(reads);
    const now = Date.now();
    expect(await eventTaken(db, id, "trigger.completed", now)).toBe(false);
    expect(await eventTaken(db, id, "trigger.completed", now + 1_000)).toBe(false);
    expect(reads.n).toBe(1);

    const created = await api<WebhookEndpointCreated>(key, "POST", "/v1/webhook-endpoints", { url: "https://example.com/hooks" });
    expect(created.status).toBe(201);
    expect(await eventTaken(db, id, "trigger.completed", now + 1_000)).toBe(true);
    expect(reads.n).toBe(2);

    const disabled = await api(key, "PATCH", `/v1/webhook-endpoints/${created.body.id}`, { enabled: false });
    expect(disabled.status).toBe(200);
    expect(await eventTaken(db, id, "trigger.completed", now + 1_000)).toBe(false);
    // Past the TTL, read again (another isolate's change is seen then).
    expect(await eventTaken(db, id, "trigger.completed", now + 1_000 + EVENT_TAKEN_TTL_MS)).toBe(false);
    expect(reads.n).toBe(4);
  });
});
