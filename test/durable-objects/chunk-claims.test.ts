import { runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { CLAIM_DEADLINE_MS, type FinalReport, type SentReport } from "../../src/durable-objects/ledger/claims";
import { DeliveryState } from "../../src/durable-objects/ledger/delivery-state";
import type { TriggerLedger } from "../../src/durable-objects/ledger/trigger-ledger";
import { ledgerOf } from "../ledger";
import { unique } from "../factories";

// A chunk's claims are read in one statement and its final claims and done recipients written in
// one each: the answers must stay what a statement per recipient gave.
const sent: SentReport = { providerMessageId: "p1", provider: "sandbox", integrationId: "i1", to: "a@example.com", attempts: 1 };
const failed: FinalReport = {
  status: "failed",
  errorCode: "rejected",
  errorMessage: "no",
  provider: "sandbox",
  integrationId: "i1",
  to: null,
  attempts: 1,
};

describe("a chunk's claims, read and written together", () => {
  it("grants a key asked twice in one claim once, and answers each key as its own claim left it", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    const now = Date.now();
    const result = await runInDurableObject(ledgerOf(environmentId, transactionId), async (_ledger: TriggerLedger, state) => {
      const claims = new DeliveryState(state.storage.sql);
      // "old" was claimed by a consumer that died past the deadline; "sent" went out; "done" was final.
      claims.claim(environmentId, transactionId, ["old", "sent"], ["done"], false, now - CLAIM_DEADLINE_MS - 1);
      claims.report(environmentId, transactionId, [{ key: "sent", outcome: "sent", report: sent }], now - 10);
      claims.report(environmentId, transactionId, [{ key: "done", outcome: "final", report: failed }], now - 10);
      const answer = claims.claim(environmentId, transactionId, ["new", "new", "old", "sent", "done"], ["skip", "skip"], false, now);
      claims.markDone(environmentId, transactionId, 0, ["a", "b", "a"]);
      claims.markDone(environmentId, transactionId, 0, ["b", "c"]);
      const rows = state.storage.sql
        .exec<{ key: string; state: string }>(
          "SELECT key, state FROM claims WHERE env = ? AND tx = ? ORDER BY key",
          environmentId,
          transactionId,
        )
        .toArray();
      return { answer, rows, done: claims.doneCount(environmentId, transactionId) };
    });
    expect(result.answer).toEqual({
      granted: ["new", "old"],
      cancelled: [],
      busy: ["new"],
      sent: [{ key: "sent", report: sent }],
      final: [{ key: "done", report: failed }],
    });
    expect(result.rows).toEqual([
      { key: "done", state: "final" },
      { key: "new", state: "claimed" },
      { key: "old", state: "claimed" },
      { key: "sent", state: "sent" },
      { key: "skip", state: "final" },
    ]);
    expect(result.done).toBe(3);
  });
  it("renews only claims still held: a renewed claim is busy past its first deadline, a reported or released one stays as it was", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    const now = Date.now();
    const result = await runInDurableObject(ledgerOf(environmentId, transactionId), async (_ledger: TriggerLedger, state) => {
      const claims = new DeliveryState(state.storage.sql);
      const grantedAt = now - CLAIM_DEADLINE_MS - 1;
      claims.claim(environmentId, transactionId, ["live", "dead", "went", "back"], [], false, grantedAt);
      claims.report(environmentId, transactionId, [{ key: "went", outcome: "sent", report: sent }], grantedAt + 5);
      claims.report(environmentId, transactionId, [{ key: "back", outcome: "retry" }], grantedAt + 5);
      // The live consumer renews what it asked for; "dead"'s consumer no longer renews; "ghost" was never claimed.
      const renewed = claims.renew(environmentId, transactionId, ["live", "went", "back", "ghost"], now - 1);
      const answer = claims.claim(environmentId, transactionId, ["live", "dead", "went", "back"], [], false, now);
      const rows = state.storage.sql
        .exec<{ key: string; state: string; at: number }>(
          "SELECT key, state, at FROM claims WHERE env = ? AND tx = ? ORDER BY key",
          environmentId,
          transactionId,
        )
        .toArray();
      return { renewed, answer, rows };
    });
    expect(result.renewed).toBe(1);
    expect(result.answer).toEqual({
      granted: ["dead", "back"],
      cancelled: [],
      busy: ["live"],
      sent: [{ key: "went", report: sent }],
      final: [],
    });
    expect(result.rows).toEqual([
      { key: "back", state: "claimed", at: now },
      { key: "dead", state: "claimed", at: now },
      { key: "live", state: "claimed", at: now - 1 },
      { key: "went", state: "sent", at: now - CLAIM_DEADLINE_MS - 1 + 5 },
    ]);
  });
  it("writes a chunk's reports as one at a time would: only claims there change, a retry frees only a held claim", async () => {
    const environmentId = unique("env");
    const transactionId = unique("tx");
    const now = Date.now();
    const rows = await runInDurableObject(ledgerOf(environmentId, transactionId), async (_ledger: TriggerLedger, state) => {
      const claims = new DeliveryState(state.storage.sql);
      claims.claim(environmentId, transactionId, ["held", "out", "bad", "went", "twice", "back"], [], false, now - 10);
      claims.report(environmentId, transactionId, [{ key: "went", outcome: "sent", report: sent }], now - 5);
      claims.report(
        environmentId,
        transactionId,
        [
          { key: "held", outcome: "retry" },
          { key: "out", outcome: "sent", report: sent },
          { key: "bad", outcome: "final", report: failed },
          // sent already: a retry frees nothing
          { key: "went", outcome: "retry" },
          // never claimed: no claim appears
          { key: "ghost", outcome: "sent", report: sent },
        ],
        now,
      );
      // A key reported twice in one list: in order, as before.
      claims.report(
        environmentId,
        transactionId,
        [
          { key: "twice", outcome: "sent", report: sent },
          { key: "twice", outcome: "retry" },
          { key: "back", outcome: "retry" },
          { key: "back", outcome: "sent", report: sent },
        ],
        now,
      );
      return state.storage.sql
        .exec<{ key: string; state: string; at: number; report: string | null }>(
          "SELECT key, state, at, report FROM claims WHERE env = ? AND tx = ? ORDER BY key",
          environmentId,
          transactionId,
        )
        .toArray()
        .map((r) => ({ ...r, report: r.report ? JSON.parse(r.report) : null }));
    });
    expect(rows).toEqual([
      { key: "bad", state: "final", at: now, report: failed },
      { key: "out", state: "sent", at: now, report: sent },
      { key: "twice", state: "sent", at: now, report: sent },
      { key: "went", state: "sent", at: now - 5, report: sent },
    ]);
  });
});
