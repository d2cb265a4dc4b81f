import { z } from "@hono/zod-openapi";
import { JsonValue } from "../contract/json";

/** How many recipients one job carries: keeps an invocation far inside CPU and subrequest limits. */
export const RECIPIENTS_PER_JOB = 50;

/**
 * Log shards one environment-erasure job asks. The consumer takes at most 5,000 shard calls an
 * invocation (delivery/unpack.ts weighs a job by its shards): half of the 10,000 subrequests one
 * invocation may make, 100 such jobs of a batch or pack.
 */
export const SHARDS_PER_ERASE_JOB = 50;

/** A run of one layout's log shards of a generation: `<prefix>/<count>/<from>` to `<prefix>/<count>/<to - 1>`. */
const ShardSlice = z
  .object({ prefix: z.string(), count: z.number().int().min(1), from: z.number().int().min(0), to: z.number().int().min(1) })
  .refine(
    (s) => s.from < s.to && s.to <= s.count && s.to - s.from <= SHARDS_PER_ERASE_JOB,
    "a slice of at most SHARDS_PER_ERASE_JOB shards",
  );

/**
 * The Queue contract. A job names what D1 or the trigger's Durable Object holds, never the
 * payload itself, so it stays far below the Queue's 128 KB message limit.
 */
export const DeliveryJob = z.discriminatedUnion("type", [
  z.object({
    v: z.literal(1),
    type: z.literal("trigger"),
    environmentId: z.string(),
    transactionId: z.string(),
    /** The ledger shard that holds the trigger; absent in jobs from before ledgers: the current layout's. */
    ledger: z.string().optional(),
  }),
  z.object({
    v: z.literal(1),
    type: z.literal("recipients"),
    environmentId: z.string(),
    transactionId: z.string(),
    ledger: z.string().optional(),
    /** Which slice of the trigger's recipients this is; the Durable Object counts finished chunks. */
    chunk: z.number().int().min(0),
    subscriberIds: z.array(z.string()).min(1).max(RECIPIENTS_PER_JOB),
    /** Resuming after a delay or digest: steps before this index have been passed. */
    fromStep: z.number().int().min(0).optional(),
    /** Resuming as the run that carries a closed digest: its collected events live in that object. */
    digest: z.object({ name: z.string(), stepId: z.string() }).optional(),
    /** Said in the tracking log of the next message of a resumed run (e.g. when the delay waited until). */
    note: z.record(z.string(), JsonValue).optional(),
    /** This trigger's events went into another trigger's digest: its remaining steps stop as digested. */
    digestedInto: z.string().optional(),
    /** These subscribers were erased while their steps waited: the remaining steps are recorded cancelled, nothing is sent. */
    erased: z.literal(true).optional(),
    /** Resuming a wait whose `if` the consumer reads against this signal (`seq`: its number in the trigger's home). */
    signal: z.object({ seq: z.number().int(), name: z.string(), data: JsonValue.optional() }).optional(),
  }),
  z.object({
    v: z.literal(1),
    type: z.literal("erase-environment"),
    /** A deleted environment: its rows in these log shards go, in bounded passes (delivery/erase-environment.ts). */
    environmentId: z.string(),
    shards: ShardSlice,
  }),
]);
export type DeliveryJob = z.infer<typeof DeliveryJob>;
export type TriggerJob = Extract<DeliveryJob, { type: "trigger" }>;
export type RecipientsJob = Extract<DeliveryJob, { type: "recipients" }>;
export type EraseEnvironmentJob = Extract<DeliveryJob, { type: "erase-environment" }>;

export const DeadLetter = z.object({ job: DeliveryJob, reason: z.string(), messageId: z.string().optional() });
export type DeadLetter = z.infer<typeof DeadLetter>;

export const triggerJob = (environmentId: string, transactionId: string): TriggerJob => ({
  v: 1,
  type: "trigger",
  environmentId,
  transactionId,
});

/** The jobs that erase a deleted environment from the log: one per slice of its shards. */
export const eraseEnvironmentJobs = (environmentId: string, slices: readonly z.infer<typeof ShardSlice>[]): EraseEnvironmentJob[] =>
  slices.map((shards) => ({ v: 1, type: "erase-environment", environmentId, shards }));
