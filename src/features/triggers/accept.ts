import type { TriggerRecord } from "../../jobs/trigger-record";
import { TriggerStore } from "../../durable-objects/client/trigger-store";
import type { Bindings } from "../../env";
import { byteLength, canonicalJson, sha256Hex } from "../../lib/crypto";
import { type DestinationOptions, STRICT_DESTINATIONS } from "../../lib/destinations";
import { ApiError } from "../../lib/errors";
import { uuidv7 } from "../../lib/ids";
import { inHopSpans } from "../../lib/spans";
import { cachedGate, rememberGate, type WorkflowGate } from "../workflows/gate-cache";
import { plannedMessages } from "../../engine/planned-messages";
import { parsedJson, parsedJsonObject } from "../../contract/json";
import { BROADCAST_RECIPIENT } from "../../contract/recipients";
import type { Data } from "../data";
import { payloadErrors } from "./payload-schema";
import { namedTopics, parseRecipients, type InvalidRecipient } from "./recipients";
import { type BroadcastRequest, MAX_PAYLOAD_BYTES, type TriggerRequest } from "./schemas";
import { knownTenants } from "../tenants/known-tenants";
import { recordLastTriggered } from "../workflows/last-triggered";

/** Keeps work running after the answer (a request's `waitUntil`); without one, the accept path awaits it. */
export type Background = (work: Promise<unknown>) => void;

export interface Accepted {
  transactionId: string;
  invalidRecipients: InvalidRecipient[];
}

/** A trigger that passed every check and is ready to be made durable. */
interface Prepared extends Accepted {
  record: TriggerRecord;
  fingerprint: string;
}

/** The gates of the named workflows (absent when unknown), from the isolate's cache or one D1 batch. */
export async function loadWorkflowGates(data: Data, keys: string[]) {
  const { environmentId } = data;
  const gates = new Map<string, WorkflowGate>();
  const missing: string[] = [];
  for (const key of new Set(keys)) {
    const hit = cachedGate(environmentId, key);
    if (hit === undefined) missing.push(key);
    else if (hit) gates.set(key, hit);
  }
  if (missing.length === 0) return gates;
  const rows = await data.accept.workflowGateRows(missing);
  for (const r of rows) {
    const gate = {
      id: r.id,
      key: r.key,
      version: r.version,
      active: r.active,
      payloadSchema: r.payloadSchema ?? null,
      contentStamp: r.contentStamp,
      channelSteps: plannedMessages(r.steps),
      brandVersion: r.brandVersion,
      translationsRevision: r.translationsRevision,
      defaultLocale: r.defaultLocale,
    };
    gates.set(r.key, gate);
  }
  for (const key of missing) rememberGate(environmentId, key, gates.get(key) ?? null);
  return gates;
}

/** A schema stored before save-time checks existed may still throw: the trigger gets a 422 that names it, not a 500. */
function checkedPayloadErrors(schema: Record<string, unknown>, payload: unknown) {
  try {
    return payloadErrors(schema, payload);
  } catch {
    throw new ApiError("validation_failed", "The workflow's payloadSchema cannot be applied; save the workflow again to see why.", [
      { path: "payloadSchema", message: "The schema cannot be applied (an unresolved $ref, an invalid pattern or too deep)." },
    ]);
  }
}

export const workflowKeyOf = (request: Pick<TriggerRequest, "workflow" | "name">) => (request.workflow ?? request.name)!;

/**
 * A trigger sent with an `Idempotency-Key` and no transactionId gets one made from the key (and
 * its place in a bulk request), so a retry that outlives the stored answer (one not kept after a
 * 5xx, a claim lost with its isolate) still meets the ledger's replay and conflict rules.
 */
export async function withKeyTransactionId<T extends { transactionId?: string | undefined }>(
  request: T,
  key: string | undefined,
  index?: number,
): Promise<T> {
  if (key === undefined || request.transactionId !== undefined) return request;
  const digest = (await sha256Hex(key)).slice(0, 32);
  return { ...request, transactionId: index === undefined ? `idem:${digest}` : `idem:${digest}:${index}` };
}

/**
 * Which of the topics the triggers name exist: one D1 read, and none for triggers without topics
 * (the common case), so the accept path of a trigger to subscribers is unchanged.
 */
export async function loadTopicKeys(data: Data, requests: TriggerRequest[]): Promise<Set<string>> {
  const keys = [...new Set(requests.flatMap((r) => namedTopics(r.to)))];
  if (keys.length === 0) return new Set();
  return data.accept.existingTopicKeys(keys);
}

type Tenancy = Pick<TriggerRecord, "tenant" | "context">;

/** The trigger's tenant (from `tenant` or `context.tenant`) and its other context keys, as the record keeps them. */
export function tenancyOf(request: Pick<BroadcastRequest, "tenant" | "context">): Tenancy {
  const { tenant: fromContext, ...rest } = request.context ?? {};
  const given = request.tenant ?? fromContext;
  const tenant =
    given === undefined
      ? undefined
      : typeof given === "string"
        ? { id: given }
        : {
            id: given.id,
            ...("name" in given && typeof given.name === "string" ? { name: given.name } : {}),
            ...(given.data !== undefined ? { data: parsedJsonObject(given.data) } : {}),
          };
  const context = Object.fromEntries(Object.entries(rest).map(([key, v]) => [key, typeof v === "string" ? v : v.id]));
  return { ...(tenant ? { tenant } : {}), ...(Object.keys(context).length ? { context } : {}) };
}

/** A tenant named by id only must exist; one given as an object is created on the way. */
const namedById = (request: Pick<BroadcastRequest, "tenant" | "context">): string | undefined => {
  const given = request.tenant ?? request.context?.tenant;
  return typeof given === "string" ? given : undefined;
};

/** Which of the tenants the triggers name by id exist: the isolate's cache, else one D1 read beside the gate's. */
export async function loadTenantIds(data: Data, requests: Pick<BroadcastRequest, "tenant" | "context">[]): Promise<Set<string>> {
  const ids = requests.flatMap((r) => namedById(r) ?? []);
  return ids.length === 0 ? new Set() : knownTenants(data, ids);
}

function checkTenant(request: Pick<BroadcastRequest, "tenant" | "context">, known: ReadonlySet<string>): void {
  const id = namedById(request);
  if (id !== undefined && !known.has(id)) {
    throw new ApiError("tenant_not_found", `No tenant "${id}" in this environment: create it first, or give it as { id, name }.`);
  }
}

/** Checks the workflow gate and payload every trigger shares; throws the problem a client should see. */
function checkWorkflowAndPayload(workflowKey: string, gate: WorkflowGate | undefined, payload: Record<string, unknown>): WorkflowGate {
  if (!gate) throw new ApiError("workflow_not_found", `No workflow with key "${workflowKey}" in this environment.`);
  if (!gate.active) throw new ApiError("workflow_inactive", `The workflow "${workflowKey}" is inactive.`);
  if (byteLength(JSON.stringify(payload)) > MAX_PAYLOAD_BYTES) {
    throw new ApiError("payload_too_large", `The payload is larger than ${MAX_PAYLOAD_BYTES / 1024} KiB.`);
  }
  if (gate.payloadSchema) {
    const errors = checkedPayloadErrors(gate.payloadSchema, payload);
    if (errors.length) throw new ApiError("validation_failed", "The payload does not match the workflow's payload schema.", errors);
  }
  return gate;
}

/** The record and idempotency fingerprint of a checked trigger; `to` is what the caller addressed, as sent. */
async function prepared(
  environmentId: string,
  request: BroadcastRequest,
  gate: WorkflowGate,
  to: unknown,
  recipients: { valid: unknown[]; invalid: InvalidRecipient[] },
  now: number,
): Promise<Prepared> {
  const workflowKey = workflowKeyOf(request);
  const payload = request.payload ?? {};
  const transactionId = request.transactionId ?? uuidv7(now);
  // The idempotency fingerprint covers what the caller sent, so a replay with the same body matches.
  // Tenant and context only when given: fingerprints of triggers without them are as before.
  const tenancy = tenancyOf(request);
  const fingerprint = await sha256Hex(
    canonicalJson({
      workflowKey,
      to,
      payload,
      overrides: request.overrides ?? null,
      actor: request.actor ?? null,
      ...(request.tenant !== undefined ? { tenant: request.tenant } : {}),
      ...(request.context !== undefined ? { context: request.context } : {}),
    }),
  );
  return {
    transactionId,
    invalidRecipients: recipients.invalid,
    fingerprint,
    record: {
      environmentId,
      transactionId,
      workflowKey,
      workflowId: gate.id,
      workflowVersion: gate.version,
      contentStamp: gate.contentStamp,
      recipients: recipients.valid.map(parsedJson),
      payload: parsedJsonObject(payload),
      overrides: request.overrides ? parsedJsonObject(request.overrides) : null,
      actor: parsedJson(request.actor ?? null),
      acceptedAt: now,
      messagesInLog: true,
      plannedSteps: gate.channelSteps,
      brandVersion: gate.brandVersion,
      translationsRevision: gate.translationsRevision,
      defaultLocale: gate.defaultLocale,
      ...tenancy,
    },
  };
}

/** Checks one trigger against its workflow; throws the problem a client should see. */
export async function prepareTrigger(
  environmentId: string,
  request: TriggerRequest,
  gate: WorkflowGate | undefined,
  knownTopics: ReadonlySet<string>,
  now: number,
  destinations: DestinationOptions = STRICT_DESTINATIONS,
  tenants: ReadonlySet<string> = new Set(),
): Promise<Prepared> {
  const checked = checkWorkflowAndPayload(workflowKeyOf(request), gate, request.payload ?? {});
  checkTenant(request, tenants);
  const { valid, invalid } = parseRecipients(request.to, (key) => knownTopics.has(key), destinations);
  if (valid.length === 0) {
    const unknownTopics = invalid.flatMap((r) => (r.topic === undefined ? [] : [r.topic]));
    if (unknownTopics.length > 0 && unknownTopics.length === invalid.length) {
      const named = unknownTopics.map((key) => `"${key}"`).join(", ");
      throw new ApiError("topic_not_found", `No topic ${named} in this environment: the trigger would reach nobody.`);
    }
    throw new ApiError(
      "no_valid_recipients",
      "None of the recipients in `to` is valid.",
      invalid.flatMap((r) => r.errors.map((e) => ({ path: `to.${r.index}.${e.path}`, message: e.message }))),
    );
  }
  return prepared(environmentId, request, checked, request.to, { valid, invalid }, now);
}

/**
 * A trigger to every subscriber of the environment. It is one recipient, the broadcast marker,
 * so the fan-out resolves the audience when it runs, through the same chunks and coordinator
 * as a topic: no second engine, and the accept path costs what a trigger to one subscriber does.
 */
export async function prepareBroadcast(
  environmentId: string,
  request: BroadcastRequest,
  gate: WorkflowGate | undefined,
  now: number,
  tenants: ReadonlySet<string> = new Set(),
): Promise<Prepared> {
  const checked = checkWorkflowAndPayload(workflowKeyOf(request), gate, request.payload ?? {});
  checkTenant(request, tenants);
  return prepared(environmentId, request, checked, BROADCAST_RECIPIENT, { valid: [BROADCAST_RECIPIENT], invalid: [] }, now);
}

/**
 * Makes prepared triggers durable in their ledger shards: one call per shard, whatever the
 * number of triggers. The shard writes each trigger with its Queue job in one transaction and
 * sends the jobs moments later (its outbox), so the 202 waits for no Queue.
 */
export async function makeDurable(
  data: Data,
  env: Bindings,
  prepared: Prepared[],
  background?: Background,
): Promise<(Accepted | ApiError)[]> {
  const hops = prepared.map(({ record }) => ({
    environmentId: record.environmentId,
    workflow: record.workflowKey,
    transactionId: record.transactionId,
  }));
  const outcomes = await inHopSpans("clarion.trigger.accept", hops, () =>
    new TriggerStore(env).accept(prepared.map((p) => ({ record: p.record, fingerprint: p.fingerprint }))),
  );
  // Every trigger is accepted here (single, bulk, broadcast, Novu's, a step's children): the one
  // place the workflows' last-triggered times are written. Replays and conflicts are no new trigger.
  const fresh = prepared.flatMap((p, i) =>
    outcomes[i] === "accepted" && p.record.workflowId !== undefined
      ? [{ workflowId: p.record.workflowId, acceptedAt: p.record.acceptedAt }]
      : [],
  );
  const written = recordLastTriggered(data, fresh);
  if (written) {
    if (background) background(written);
    else await written;
  }
  return prepared.map((p, i): Accepted | ApiError =>
    outcomes[i] === "conflict"
      ? new ApiError("transaction_conflict", `transactionId "${p.transactionId}" was already used for a different trigger.`)
      : { transactionId: p.transactionId, invalidRecipients: p.invalidRecipients },
  );
}
