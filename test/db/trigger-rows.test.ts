import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { runBatch, type Statement } from "../../src/db/batch";
import { createDb } from "../../src/db/client";
import { TRIGGER_STATUSES, type TriggerStatus, triggers } from "../../src/db/schema";
import type { JsonArray } from "../../src/contract/json";
import type { TriggerRecord } from "../../src/jobs/trigger-record";
import { finishTriggers } from "../../src/delivery/writes/trigger-writes";
import { createEnvironment, unique } from "../factories";
import * as drizzleBuilt from "./drizzle-statements";
import { recorded, recordingDb } from "./recorded";
import { storedRows } from "./stored";

const db = createDb(env.DB);
const at = (i: number) => new Date(1_700_000_000_123 + i * 1_001);
const pick = <V>(i: number, values: V[]) => values[i % values.length]!;

const record = (environmentId: string, transactionId: string, i: number): TriggerRecord => ({
  environmentId,
  transactionId,
  workflowKey: `w-${i % 3}`,
  workflowVersion: pick(i, [undefined, 0, 3]),
  recipients: pick<JsonArray>(i, [["s-1"], [{ subscriberId: `s-${i}`, email: "Über@example.com" }, { topicKey: "t" }], []]),
  payload: { orderId: `o-${i}`, note: `it's "quoted" \\ ${i}`, n: i + 0.5, list: [1, null, { deep: true }] },
  overrides: pick(i, [null, { email: { subject: "Hi" } }]),
  actor: pick(i, [null, "actor-1", { subscriberId: "a" }]),
  acceptedAt: at(i).getTime(),
});

/** Triggers already recorded, in every status, or not at all (`undefined`). */
const seeds: (TriggerStatus | undefined)[] = [undefined, ...TRIGGER_STATUSES];

/**
 * Runs `write` against triggers seeded in every status, through the old drizzle statements, then
 * (the triggers deleted and seeded again) through the hand-bound ones: every column each stored.
 */
async function bothWays(
  count: number,
  write: (built: typeof drizzleBuilt | "byHand", keys: string[], environmentId: string) => readonly Statement[],
) {
  const { id: environmentId } = await createEnvironment();
  const keys = Array.from({ length: count }, (_, i) => unique(`tx${String(i).padStart(3, "0")}`));
  const seed = async () => {
    await db.delete(triggers).where(eq(triggers.environmentId, environmentId));
    const rows = keys.flatMap((transactionId, i) => {
      const status = pick(i, seeds);
      if (!status) return [];
      const r = record(environmentId, transactionId, i + 100);
      return [
        { ...r, status, acceptedAt: new Date(r.acceptedAt), cancelledMessages: pick(i, [null, 4, 4]), createdAt: at(1), updatedAt: at(1) },
      ];
    });
    for (let i = 0; i < rows.length; i += 5) await db.insert(triggers).values(rows.slice(i, i + 5));
  };
  await seed();
  const before = await storedRows(triggers, "transaction_id", keys);
  await runBatch(db, write(drizzleBuilt, keys, environmentId));
  const byDrizzle = await storedRows(triggers, "transaction_id", keys);
  await seed();
  await runBatch(db, write("byHand", keys, environmentId));
  return { before, byDrizzle, byHand: await storedRows(triggers, "transaction_id", keys) };
}

// D1's trigger records from before the log took them: still finished by delivery, by hand-bound statements.
describe("the hand-bound trigger writes of delivery (D1's records from before the log)", () => {
  it("finish triggers as drizzle's update did: a terminal status never replaced, completed and failed in one call", async () => {
    const now = at(60);
    const { before, byDrizzle, byHand } = await bothWays(100, (built, keys, environmentId) => {
      const items = keys.map((transactionId, i) => ({
        environmentId,
        transactionId,
        status: pick(i, ["completed", "completed", "failed"] as const),
      }));
      return built === "byHand" ? finishTriggers(db, items, now) : built.finishTriggers(db, items, now);
    });
    expect(byHand).toHaveLength(before.length);
    expect(byDrizzle).not.toEqual(before);
    expect(byHand).toEqual(byDrizzle);
    const cancelled = before.filter((r) => r.status === "'cancelled'").map((r) => r.transaction_id);
    expect(cancelled.length).toBeGreaterThan(0);
    expect(byHand.filter((r) => cancelled.includes(r.transaction_id)).map((r) => r.status)).toEqual(cancelled.map(() => "'cancelled'"));
  });

  it("bind at most D1's 100 parameters a statement, in as many statements as drizzle's", () => {
    for (const count of [1, 7, 8, 45, 46, 200]) {
      const keys = Array.from({ length: count }, (_, i) => `tx_${i}`);
      const finishes = keys.map((transactionId, i) => ({
        environmentId: "env_x",
        transactionId,
        status: pick(i, ["completed", "failed"] as const),
      }));
      const finishStatements = finishTriggers(recordingDb, finishes, at(0));
      expect(finishStatements.length).toBe(drizzleBuilt.finishTriggers(db, finishes, at(0)).length);
      for (const statement of finishStatements) expect(recorded(statement).params.length).toBeLessThanOrEqual(100);
    }
  });
});
