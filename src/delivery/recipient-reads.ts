import type { Statement } from "../db/batch";
import type { Db } from "../db/client";
import {
  type ChannelRow,
  legacyMessageRead,
  recipientRows,
  recipientRowsRead,
  type SubscriberRow,
  type WorkflowRef,
  type WorkflowRow,
  workflowRead,
  workflowRefKey,
} from "../db/queries/recipient-reads";
import type { MessageRow } from "./writes/message-writes";
import { MicroBatcher } from "../lib/micro-batch";
import type { LogMessage, LogStore } from "../durable-objects/client/log-store";

/** A log message as the phases read a recorded one (D1's row shape, times as dates). */
const asRow = (m: LogMessage): MessageRow => ({ ...m, createdAt: new Date(m.createdAt), updatedAt: new Date(m.updatedAt) });

/** What one chunk of recipients reads before its steps run. */
export interface ChunkRows {
  workflow: WorkflowRow | null;
  subscribers: SubscriberRow[];
  channels: ChannelRow[];
  messages: MessageRow[];
  /** Suppressed addresses among the subscribers of the chunks read with this one: a superset of its own, in the same environment. */
  suppressed: string[];
}

interface Ask {
  /** The trigger: its workflow, and whether its messages are only in the log. */
  workflow: WorkflowRef & { messagesInLog?: boolean | undefined; acceptedAt?: number | undefined };
  transactionId: string;
  subscriberIds: string[];
}

/** Subscriber ids per group of reads: a list is one bound parameter, but a group's rows stay a modest answer. */
const IDS_PER_READ = 1_000;

const pairKey = (transactionId: string, subscriberId: string) => `${transactionId}\u0000${subscriberId}`;

/**
 * The reads of every chunk a consumer invocation starts together, per environment: each workflow
 * version once, and the subscribers with their channels and suppressions of all chunks in one
 * statement (per thousand subscribers; D1's messages in one more only for triggers from before the
 * log) instead of several per chunk. They join the invocation's
 * shared D1 batch, so a batch of single-recipient triggers costs a handful of reads, not six each.
 */
export class RecipientReads {
  private readonly batcher: MicroBatcher<Ask, ChunkRows>;

  constructor(
    private readonly db: Db,
    private readonly write: (statements: Statement[]) => Promise<unknown[]>,
    private readonly logs: LogStore,
    /** A trigger whose fan-out this invocation recorded first: none of its chunks ran before, so the log holds nothing of it. */
    private readonly unlogged: (environmentId: string, transactionId: string) => boolean = () => false,
  ) {
    this.batcher = new MicroBatcher((environmentId, asks) => this.read(environmentId, asks));
  }

  rows(environmentId: string, workflow: Ask["workflow"], transactionId: string, subscriberIds: string[]): Promise<ChunkRows> {
    return this.batcher.call(environmentId, { workflow, transactionId, subscriberIds });
  }

  private async read(environmentId: string, asks: Ask[]): Promise<ChunkRows[]> {
    const statements: Statement[] = [];
    const workflowAt = new Map<string, number>();
    const workflowOf = new Map<string, WorkflowRow | null>();
    /** Versions this isolate kept, by key: their workflow's row is checked by the recipients' read (a purged one runs no more). */
    const kept = new Map<string, string>();
    for (const ask of asks) {
      const key = workflowRefKey(ask.workflow);
      if (workflowAt.has(key) || workflowOf.has(key)) continue;
      const version = keptVersion(environmentId, key);
      if (version && ask.workflow.workflowId) {
        workflowOf.set(key, version);
        kept.set(key, ask.workflow.workflowId);
      } else {
        workflowAt.set(key, statements.length);
        statements.push(workflowRead(this.db, environmentId, ask.workflow));
      }
    }
    const groups = groupsOf(asks);
    const groupAt = groups.map((group) => {
      const at = statements.length;
      const ids = [...new Set(group.flatMap((a) => a.subscriberIds))];
      statements.push(recipientRowsRead(this.db, environmentId, ids, [...new Set(kept.values())]));
      // D1 holds messages only of triggers accepted before the log moved to the shards (their records do not say so).
      const pairs = group
        .filter((a) => !a.workflow.messagesInLog)
        .flatMap((a) => a.subscriberIds.map((s) => [a.transactionId, s] as const));
      const legacyAt = pairs.length ? statements.push(legacyMessageRead(this.db, environmentId, pairs)) - 1 : -1;
      return { at, legacyAt };
    });
    // What a redelivered chunk already recorded is in the log: one call per shard of the subscribers' partitions.
    const allPairs = asks
      .filter((a) => !this.unlogged(environmentId, a.transactionId))
      .flatMap((a) => a.subscriberIds.map((s): [string, string] => [a.transactionId, s]));
    const [results, logged] = await Promise.all([
      this.write(statements),
      allPairs.length ? this.logs.ofRecipients(environmentId, allPairs, earliestAcceptance(asks)) : [],
    ]);
    const recorded = logged.map(asRow);
    const read = groupAt.map(({ at }) => recipientRows(results[at]));
    for (const [key, workflowId] of kept)
      if (!read[0]?.workflows.has(workflowId)) {
        workflowOf.set(key, null);
        forgetVersion(environmentId, key);
      }
    for (const [key, at] of workflowAt) {
      const workflow = (results[at] as WorkflowRow[])[0] ?? null;
      workflowOf.set(key, workflow);
      if (workflow) keepVersion(environmentId, key, workflow);
    }
    const rows: ChunkRows[] = [];
    groups.forEach((group, g) => {
      const { legacyAt } = groupAt[g]!;
      const { subscribers, channels, suppressed } = read[g]!;
      const legacy = legacyAt < 0 ? [] : (results[legacyAt] as MessageRow[]);
      // A group is every chunk of a batch (up to 100 of 50): each chunk takes its own rows by
      // subscriber, not by a pass over the group's (that was a pass per chunk, 1.4 % of a topic's CPU).
      // A subscriber's rows keep their order (a message read later wins in `existing`).
      const subscribersOf = Map.groupBy(subscribers, (s) => s.subscriberId);
      const channelsOf = Map.groupBy(channels, (c) => c.subscriberId);
      const messagesOf = Map.groupBy([...legacy, ...recorded], (m) => pairKey(m.transactionId, m.subscriberId));
      for (const ask of group) {
        const mine = [...new Set(ask.subscriberIds)];
        rows.push({
          workflow: workflowOf.get(workflowRefKey(ask.workflow)) ?? null,
          subscribers: mine.flatMap((id) => subscribersOf.get(id) ?? []),
          channels: mine.flatMap((id) => channelsOf.get(id) ?? []),
          messages: mine.flatMap((id) => messagesOf.get(pairKey(ask.transactionId, id)) ?? []),
          suppressed,
        });
      }
    });
    return rows;
  }
}

/**
 * Workflow versions this isolate read, by environment and version key, least recently used
 * first. A version is never changed once saved (only inserted, and deleted with its environment,
 * whose id is never reused), so a warm isolate reads each once. A live key (`k:`, records from
 * before versions) is never kept: it names whatever the workflow is now. The version's workflow
 * row must still be there (live or a tombstone), as `workflowRead` requires: the recipients' read
 * checks it for the kept ones in the same statement, and a purged workflow's runs fail.
 */
const versions = new Map<string, WorkflowRow>();
const VERSIONS_KEPT = 500;

function keptVersion(environmentId: string, key: string): WorkflowRow | undefined {
  const at = `${environmentId}\u0000${key}`;
  const hit = versions.get(at);
  if (hit) {
    versions.delete(at);
    versions.set(at, hit);
  }
  return hit;
}

function forgetVersion(environmentId: string, key: string): void {
  versions.delete(`${environmentId}\u0000${key}`);
}

function keepVersion(environmentId: string, key: string, workflow: WorkflowRow): void {
  if (!key.startsWith("v:")) return;
  versions.set(`${environmentId}\u0000${key}`, workflow);
  if (versions.size > VERSIONS_KEPT) versions.delete(versions.keys().next().value!);
}

/** The earliest acceptance among the asks' triggers (undefined if one does not say): older log generations hold none of their messages. */
function earliestAcceptance(asks: Ask[]): number | undefined {
  const times = asks.map((a) => a.workflow.acceptedAt);
  return times.every((t) => typeof t === "number") ? Math.min(...(times as number[])) : undefined;
}

/** Consecutive asks whose subscriber ids add up to at most IDS_PER_READ (a larger ask is a group alone); the order is kept. */
function groupsOf(asks: Ask[]): Ask[][] {
  const groups: Ask[][] = [];
  let current: Ask[] = [];
  let size = 0;
  for (const ask of asks) {
    if (current.length > 0 && size + ask.subscriberIds.length > IDS_PER_READ) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(ask);
    size += ask.subscriberIds.length;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}
