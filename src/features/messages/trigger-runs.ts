import type { z } from "@hono/zod-openapi";
import { type LedgerRuns, TriggerStore } from "../../durable-objects/client/trigger-store";
import type { WaitingStep } from "../../durable-objects/ledger/claims";
import type { Bindings, EnvironmentData } from "../../env";
import { placeSteps } from "../../engine/workflow-tree";
import { type RunsQuery, runsCursor, type TriggerRuns } from "./run-schemas";
import { type RunMessage, recipientRun, runFromMessages } from "./run-view";

/** Messages per page once the home forgot the trigger: the message list's own largest page. */
const MESSAGES_PER_PAGE = 200;

/**
 * Per recipient, a trigger's run so far. While the run's home (its ledger shard, or a large
 * fan-out's coordinator) keeps the trigger, a page of its recipients in fan-out order with the
 * path taken and every step on it. The home forgets a trigger one idempotency window after it
 * finished, and its control steps' outcomes with it: they are not copied to the trigger's log
 * record, since that would write every recipient's steps again for every trigger, to be read by
 * few; the view then shows what the messages show.
 */
export async function triggerRuns(
  env: Bindings,
  data: EnvironmentData,
  transactionId: string,
  query: z.infer<typeof RunsQuery>,
): Promise<TriggerRuns> {
  const cursor = runsCursor.read(query.cursor);
  if (cursor?.[0] !== "log") {
    const store = new TriggerStore(env);
    const page = { offset: cursor?.[1] ?? 0, limit: query.limit, ...(query.subscriberId ? { subscriberId: query.subscriberId } : {}) };
    const home = await store.runs(data.environmentId, transactionId, page);
    if (home) return fromHome(store, data, transactionId, home);
  }
  return fromMessages(data, transactionId, query.subscriberId, cursor?.[0] === "log" ? cursor[1] : undefined);
}

async function fromHome(store: TriggerStore, data: EnvironmentData, transactionId: string, home: LedgerRuns): Promise<TriggerRuns> {
  const wanted = new Set(home.recipients);
  const [steps, messages, digested] = await Promise.all([
    data.messages.workflowSteps(home.workflow),
    data.messages.recipientMessages(transactionId, home.recipients),
    Promise.all(home.digests.map((name) => store.digest(name).pending(transactionId))),
  ]);
  const inDigests = digested.flatMap((d) =>
    d
      ? d.subscriberIds
          .filter((s) => wanted.has(s))
          .map((subscriberId): WaitingStep => ({ stepId: d.stepId, subscriberId, kind: "digest", until: d.until }))
      : [],
  );
  const program = placeSteps(steps ?? []);
  const of = <T extends { subscriberId: string }>(rows: readonly T[]) => Map.groupBy(rows, (r) => r.subscriberId);
  const [messagesOf, stepsOf, waitsOf] = [of(messages), of(home.steps), of([...home.waits, ...inDigests])];
  return {
    data: home.recipients.map((s) =>
      recipientRun(program, s, { messages: messagesOf.get(s) ?? [], steps: stepsOf.get(s) ?? [], waits: waitsOf.get(s) ?? [] }),
    ),
    nextCursor: home.next === null ? null : runsCursor.encode(["home", home.next]),
    outcomesKept: true,
  };
}

async function fromMessages(
  data: EnvironmentData,
  transactionId: string,
  subscriberId: string | undefined,
  cursor: string | undefined,
): Promise<TriggerRuns> {
  const page = await data.messages.list({
    transactionId,
    limit: MESSAGES_PER_PAGE,
    ...(subscriberId ? { subscriberId } : {}),
    ...(cursor ? { cursor } : {}),
  });
  const channels = new Map(page.data.map((m) => [m.stepId, m.channel]));
  const bySubscriber = Map.groupBy(
    page.data.map(
      (m): RunMessage => ({
        id: m.id,
        subscriberId: m.subscriberId,
        stepId: m.stepId,
        status: m.status,
        errorCode: m.error?.code ?? null,
        createdAt: Date.parse(m.createdAt),
        updatedAt: Date.parse(m.updatedAt),
      }),
    ),
    (m) => m.subscriberId,
  );
  return {
    data: [...bySubscriber].map(([s, rows]) => runFromMessages(s, rows, (stepId) => channels.get(stepId) ?? "message")),
    nextCursor: page.nextCursor ? runsCursor.encode(["log", page.nextCursor]) : null,
    outcomesKept: false,
  };
}
