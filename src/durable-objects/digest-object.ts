import { DurableObject } from "cloudflare:workers";
import type { JsonObject } from "../contract/json";
import type { RecipientsJob } from "../jobs/job";
import { deliveryQueueFor } from "../jobs/queues";
import type { Bindings } from "../env";
import type { DigestCollected, DigestEntry, DigestPending, DigestResume } from "./digest-types";
import { ledgerTimings } from "./settings";

interface OpenWindow {
  closesAt: number;
  stepId: string;
  entries: DigestEntry[];
}

interface State {
  window: OpenWindow | null;
  /** Look-back mode: when the last run went out at once. */
  lastSentAt: number | null;
  /** Each trigger's answer, so a redelivered job gets the same one. */
  decisions: Record<string, "continue" | "wait">;
  /** Closed digests by the transactionId whose run carries them; read by that run. */
  closed: Record<string, { events: JsonObject[]; count: number; closedAt: number }>;
  /**
   * The job each trigger's run continued with when its window closed, kept for the idempotency
   * window: if that job is lost, the trigger's watchdog asks for it again (`resume`).
   */
  released?: Record<string, { job: RecipientsJob; at: number }>;
}

const KEY = "digest";
const KEEP_CLOSED = 50;

/**
 * One object per (environment, workflow, subscriber, digest key): `digestName` in the client.
 * Triggers that reach the digest step within the window are collected; when the window closes,
 * the first remaining trigger's run continues with every collected payload and the others stop
 * as `digested`.
 */
export class DigestObject extends DurableObject<Bindings> {
  private async state(): Promise<State> {
    return (await this.ctx.storage.get<State>(KEY)) ?? { window: null, lastSentAt: null, decisions: {}, closed: {} };
  }

  async add(
    entry: DigestEntry,
    stepId: string,
    windowMs: number,
    mode: "fixed" | "lookback",
    now = Date.now(),
  ): Promise<"continue" | "wait"> {
    const state = await this.state();
    const known = state.decisions[entry.transactionId];
    if (known) return known;
    let decision: "continue" | "wait";
    if (!state.window && mode === "lookback" && (state.lastSentAt === null || now - state.lastSentAt >= windowMs)) {
      // Look-back: nothing went out recently, so this one goes at once and opens the window for the next.
      state.lastSentAt = now;
      state.closed[entry.transactionId] = { events: [entry.payload], count: 1, closedAt: now };
      decision = "continue";
    } else {
      state.window ??= { closesAt: now + windowMs, stepId, entries: [] };
      state.window.entries.push(entry);
      await this.ctx.storage.setAlarm(state.window.closesAt);
      decision = "wait";
    }
    state.decisions[entry.transactionId] = decision;
    await this.ctx.storage.put(KEY, state);
    return decision;
  }

  /** A cancelled trigger leaves the pending digest; its job runs now so its messages are recorded cancelled. */
  async remove(transactionId: string): Promise<boolean> {
    const state = await this.state();
    const entry = state.window?.entries.find((e) => e.transactionId === transactionId);
    if (!state.window || !entry) return false;
    state.window.entries = state.window.entries.filter((e) => e !== entry);
    await this.ctx.storage.put(KEY, state);
    await deliveryQueueFor(this.env, transactionId).send(entry.job);
    return true;
  }

  /**
   * The subscriber of this digest was erased: pending entries leave the window and their jobs
   * run now marked `erased` (recorded cancelled), and every collected payload is forgotten.
   */
  async erase(): Promise<number> {
    const entries = (await this.state()).window?.entries ?? [];
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    if (entries.length) {
      await deliveryQueueFor(this.env, entries[0]!.transactionId).sendBatch(entries.map((e) => ({ body: { ...e.job, erased: true } })));
    }
    return entries.length;
  }

  /** This trigger's recipient waiting in the open window, with the step that then runs and when it closes. */
  async pending(transactionId: string): Promise<DigestPending | null> {
    const window = (await this.state()).window;
    const entry = window?.entries.find((e) => e.transactionId === transactionId);
    if (!window || !entry) return null;
    return { stepId: entry.waitingStepId ?? window.stepId, subscriberIds: entry.job.subscriberIds, until: window.closesAt };
  }

  async collected(transactionId: string): Promise<DigestCollected | null> {
    const closed = (await this.state()).closed[transactionId];
    return closed ? { events: closed.events, count: closed.count } : null;
  }

  /**
   * Where a trigger's run stands here: still collecting until the window closes, or the job it
   * continued with (sent again by the watchdog when that one was lost), or null when its run
   * never waited here (it went on at once, or never arrived).
   */
  async resume(transactionId: string): Promise<DigestResume> {
    const state = await this.state();
    if (state.window?.entries.some((e) => e.transactionId === transactionId)) return { until: state.window.closesAt };
    const released = state.released?.[transactionId];
    return released ? { job: released.job } : null;
  }

  override async alarm(): Promise<void> {
    const jobs = await this.close(Date.now());
    if (jobs.length) await deliveryQueueFor(this.env, jobs[0]!.transactionId).sendBatch(jobs.map((body) => ({ body })));
  }

  /**
   * The alarm's durable half: closes the window and records the job each trigger continues
   * with, which the alarm then sends. A crash between the two loses only the send: `resume`
   * still answers with those jobs.
   */
  async close(now: number): Promise<RecipientsJob[]> {
    const state = await this.state();
    const window = state.window;
    if (!window) return [];
    state.window = null;
    const [leader, ...followers] = window.entries;
    const name = this.ctx.id.name ?? "";
    const jobs = leader
      ? [
          { ...leader.job, digest: { name, stepId: window.stepId } },
          ...followers.map((f) => ({ ...f.job, digestedInto: leader.transactionId })),
        ]
      : [];
    const keepFrom = now - ledgerTimings(this.env).retentionMs;
    state.released = Object.fromEntries(Object.entries(state.released ?? {}).filter(([, r]) => r.at > keepFrom));
    for (const job of jobs) state.released[job.transactionId] = { job, at: now };
    if (leader) {
      state.lastSentAt = now;
      state.closed[leader.transactionId] = { events: window.entries.map((e) => e.payload), count: window.entries.length, closedAt: now };
      const recent = Object.entries(state.closed)
        .sort(([, a], [, b]) => b.closedAt - a.closedAt)
        .slice(0, KEEP_CLOSED);
      state.closed = Object.fromEntries(recent);
    }
    await this.ctx.storage.put(KEY, state);
    return jobs;
  }
}
