import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { BROADCAST_RECIPIENT } from "../../../src/contract/recipients";
import { createDb } from "../../../src/db/client";
import { resolveRecipientIds } from "../../../src/delivery/recipients/resolve-recipients";
import type { JsonArray } from "../../../src/contract/json";
import type { TriggerRecord } from "../../../src/jobs/trigger-record";
import { unique } from "../../factories";

/** Bare subscribers straight into D1, 20 rows per statement. */
async function seedSubscribers(environmentId: string, ids: string[]) {
  const now = Date.now();
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < ids.length; i += 20) {
    const part = ids.slice(i, i + 20);
    statements.push(
      env.DB.prepare(
        `INSERT INTO subscribers (id, environment_id, subscriber_id, created_at, updated_at) VALUES ${part.map(() => "(?, ?, ?, ?, ?)").join(", ")}`,
      ).bind(...part.flatMap((id) => [`sub_${environmentId}_${id}`, environmentId, id, now, now])),
    );
  }
  for (let i = 0; i < statements.length; i += 90) await env.DB.batch(statements.slice(i, i + 90));
}

const record = (environmentId: string, recipients: JsonArray): TriggerRecord => ({
  environmentId,
  transactionId: unique("txn"),
  workflowKey: "w",
  recipients,
  payload: {},
  overrides: null,
  actor: null,
  acceptedAt: Date.now(),
});

describe("resolveRecipientIds for a broadcast", () => {
  it("pages past 5,000 subscribers and returns each subscriber of the environment once, and no other", async () => {
    const [mine, other] = [unique("env-b"), unique("env-o")];
    // One more than a page, so the second page is read after the first one's last id.
    const ids = Array.from({ length: 5_001 }, (_, i) => `s-${String(i).padStart(5, "0")}`);
    await seedSubscribers(mine, ids);
    await seedSubscribers(other, ["s-99999", "x-1"]);

    const resolved = await resolveRecipientIds(createDb(env.DB), record(mine, [BROADCAST_RECIPIENT]));
    expect(resolved).toHaveLength(ids.length);
    expect(new Set(resolved)).toEqual(new Set(ids));
  }, 60_000);

  it("resolves an environment without subscribers to nobody", async () => {
    expect(await resolveRecipientIds(createDb(env.DB), record(unique("env-empty"), [BROADCAST_RECIPIENT]))).toEqual([]);
  });
});
