import { env } from "cloudflare:test";
import { createDb } from "../src/db/client";
import { apiKeys, environments } from "../src/db/schema";
import { generateApiKey } from "../src/features/environments/api-keys";
import { sha256Hex } from "../src/lib/crypto";
import { newId } from "../src/lib/ids";
import type { TriggerAccepted } from "../src/features/triggers/schemas";
import type { Workflow } from "../src/features/workflows/schemas";
import { api } from "./request";
import type { LogTrigger } from "../src/durable-objects/client/log-store";
import { loggedTrigger, loggedTriggers } from "./log";

let counter = 0;
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${++counter}`;

/** A fresh environment with one API key: tests never share data through it. */
export async function createEnvironment(slug = unique("env")) {
  const id = newId("env");
  const { key, prefix } = generateApiKey(slug);
  const db = createDb(env.DB);
  const now = new Date();
  await db.batch([
    db.insert(environments).values({ id, name: slug, slug, createdAt: now }),
    db.insert(apiKeys).values({ id: newId("key"), environmentId: id, name: "test", prefix, hash: await sha256Hex(key), createdAt: now }),
  ]);
  return { id, key, slug };
}

/** A minimal valid workflow body; `overrides` replace any field. */
export const workflowBody = (overrides: Record<string, unknown> = {}) => ({
  key: unique("wf").toLowerCase(),
  name: "Order shipped",
  steps: [{ id: "email-1", type: "email", template: { subject: "Your order {{ payload.orderId }} shipped", text: "Hello" } }],
  ...overrides,
});

/** Creates a workflow through the API (so it goes through the same validation as a client's); throws unless it is created. */
export async function createWorkflow(key: string, overrides: Record<string, unknown> = {}): Promise<Workflow> {
  const res = await api<Workflow>(key, "POST", "/v1/workflows", workflowBody(overrides));
  if (res.status !== 201) throw new Error(`workflow not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** `POST /v1/trigger` as a client sends it; the answer is left to the test. */
export const postTrigger = (key: string, body: unknown, path = "/v1/trigger") => api<TriggerAccepted>(key, "POST", path, body);

/** Triggers and returns the transactionId; throws unless the trigger is accepted. */
export async function trigger(key: string, body: Record<string, unknown>): Promise<string> {
  const res = await postTrigger(key, body);
  if (res.status !== 202) throw new Error(`trigger answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.transactionId;
}

/** An environment with an active workflow ready to trigger. */
export async function createEnvironmentWithWorkflow(overrides: Record<string, unknown> = {}) {
  const environment = await createEnvironment();
  const workflow = await createWorkflow(environment.key, overrides);
  return { ...environment, workflowKey: workflow.key, workflowId: workflow.id };
}

export interface TriggerRow {
  environment_id: string;
  transaction_id: string;
  workflow_key: string;
  status: string;
  recipients: string;
  payload: string;
  updated_at: number;
}

/**
 * The record of a trigger, as the Queue consumer (or a cancellation) wrote it: in the log since
 * v4 (placed by trigger), shown in the columns D1's `triggers` had (JSON as text, times in ms).
 */
export const triggerRow = async (environmentId: string, transactionId: string): Promise<TriggerRow | null> => {
  const t = await loggedTrigger(environmentId, transactionId);
  return t && storedTrigger(t);
};

const storedTrigger = (t: LogTrigger) => ({
  environment_id: t.environmentId,
  transaction_id: t.transactionId,
  workflow_key: t.workflowKey,
  status: t.status,
  recipients: JSON.stringify(t.recipients),
  payload: JSON.stringify(t.payload),
  overrides: t.overrides === null ? null : JSON.stringify(t.overrides),
  actor: t.actor === null ? null : JSON.stringify(t.actor),
  accepted_at: t.acceptedAt,
  cancelled_messages: t.cancelledMessages,
  workflow_version: t.workflowVersion,
  created_at: t.createdAt,
  updated_at: t.updatedAt,
});

/** How many trigger records the log holds (of one transactionId, or all the environment's). */
export const countTriggerRows = async (environmentId: string, transactionId?: string) =>
  transactionId ? ((await loggedTrigger(environmentId, transactionId)) ? 1 : 0) : (await loggedTriggers(environmentId)).length;

export const subscriberRow = (environmentId: string, subscriberId: string) =>
  env.DB.prepare("SELECT * FROM subscribers WHERE environment_id = ? AND subscriber_id = ?")
    .bind(environmentId, subscriberId)
    .first<Record<string, unknown>>();

/** What the D1 record of a trigger that was accepted (and not cancelled or failed) may say, depending on how far delivery got. */
export const LIVE_TRIGGER_STATUSES = ["accepted", "processing", "completed"];

/** Adds an integration the way the integrations API stores it (credentials encrypted). */
export async function createIntegration(
  environmentId: string,
  input: {
    provider: string;
    channel: "email" | "sms" | "push" | "chat";
    credentials?: Record<string, unknown>;
    settings?: Record<string, unknown>;
    baseUrl?: string | null;
    primary?: boolean;
    priority?: number;
    active?: boolean;
    tenantId?: string;
  },
) {
  const { sealCredentials } = await import("../src/db/queries/integrations");
  const { integrations } = await import("../src/db/schema");
  const id = newId("int");
  const now = new Date();
  await createDb(env.DB)
    .insert(integrations)
    .values({
      id,
      environmentId,
      provider: input.provider,
      channel: input.channel,
      name: input.provider,
      active: input.active ?? true,
      primary: input.primary ?? false,
      priority: input.priority ?? 0,
      credentials: await sealCredentials({ environmentId, id }, input.credentials ?? {}, env.ENCRYPTION_KEY),
      settings: input.settings ?? {},
      baseUrl: input.baseUrl ?? null,
      tenantId: input.tenantId ?? null,
      createdAt: now,
      updatedAt: now,
    });
  return id;
}

/** An environment wired like `npm start` wires development: one sandbox integration per channel. */
export async function createSandboxEnvironment() {
  const environment = await createEnvironment();
  for (const channel of ["email", "sms", "push", "chat"] as const) {
    await createIntegration(environment.id, { provider: `sandbox-${channel}`, channel, primary: true });
  }
  return environment;
}

/** Base URL of a fresh scenario on the fake provider server, and helpers to script and read it. */
// Random, not `unique()`: the fake server is shared by the test files that run at the same time.
export function fakeProviderScenario(name = `scenario-${crypto.randomUUID()}`) {
  const root = env.FAKE_PROVIDER_URL;
  return {
    baseUrl: `${root}/s/${name}`,
    script: (answers: { status: number; headers?: Record<string, string>; body?: unknown; delayMs?: number }[]) =>
      fetch(`${root}/_script/${name}`, { method: "POST", body: JSON.stringify(answers) }),
    captured: async () =>
      (await (await fetch(`${root}/_captured/${name}`)).json()) as {
        method: string;
        path: string;
        headers: Record<string, string>;
        body: string;
      }[],
    /** The most requests the scenario was answering at once. */
    peak: async () => ((await (await fetch(`${root}/_peak/${name}`)).json()) as { peak: number }).peak,
  };
}
