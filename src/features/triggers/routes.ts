import { z } from "@hono/zod-openapi";
import { ApiError, fieldErrors } from "../../lib/errors";
import { apiRoute, createRouter, json, JSON_BODY_CODES, security } from "../../lib/openapi";
import {
  BroadcastRequest,
  BulkTriggerRequest,
  BulkTriggerResult,
  CancelRequest,
  CancelResult,
  SignalRequest,
  SignalResult,
  TriggerAccepted,
  TriggerList,
  TriggerQuery,
  TriggerRequest,
} from "./schemas";
import { acceptBroadcast, acceptBulk, acceptTrigger, cancelByTransactionId, signalTrigger } from "./service";
import { backgroundOf } from "../environments/auth";

export const triggersRoutes = createRouter();

const acceptedBody = (a: { transactionId: string; invalidRecipients: unknown[] }) => ({
  acknowledged: true as const,
  status: "accepted" as const,
  transactionId: a.transactionId,
  ...(a.invalidRecipients.length ? { invalidRecipients: a.invalidRecipients } : {}),
});

triggersRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/trigger",
    tags: ["Triggers"],
    summary: "Trigger a workflow",
    description:
      "Answers 202 once the trigger is durable in its ledger, which puts its job on the Queue moments later. Replaying a transactionId with the same body returns the same answer without a second delivery; another body gets 409.",
    security,
    request: { body: { required: true, content: json(TriggerRequest) } },
    responses: { 202: { description: "Accepted", content: json(TriggerAccepted) } },
    errors: [
      "workflow_not_found",
      "workflow_inactive",
      "topic_not_found",
      "no_valid_recipients",
      "transaction_conflict",
      "tenant_not_found",
    ],
  }),
  async (c) => {
    // c.get, not c.var: Hono builds c.var as a new object of every variable at each read, and
    // this is the path every trigger takes (bench/alloc.mjs counts its garbage per request).
    const result = await acceptTrigger(c.get("data"), c.env, c.req.valid("json"), c.get("idempotencyKey"), {
      background: backgroundOf(c),
    });
    return c.json(acceptedBody(result) as z.infer<typeof TriggerAccepted>, 202);
  },
);

triggersRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/trigger/bulk",
    tags: ["Triggers"],
    summary: "Trigger up to 100 workflows at once",
    description: "Each event is validated and accepted on its own, in request order; one bad event never fails the others.",
    security,
    request: { body: { required: true, content: json(BulkTriggerRequest) } },
    responses: { 202: { description: "Per-event outcome", content: json(BulkTriggerResult) } },
  }),
  async (c) => {
    const { events } = c.req.valid("json");
    const outcomes = await acceptBulk(c.get("data"), c.env, events, c.get("idempotencyKey"), undefined, {
      background: backgroundOf(c),
    });
    const results = outcomes.map((result, index) => {
      if (result instanceof ApiError) return { status: "error" as const, index, error: result.toProblem() };
      const { acknowledged: _a, ...body } = acceptedBody(result);
      return body;
    });
    return c.json({ results } as z.infer<typeof BulkTriggerResult>, 202);
  },
);

triggersRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/trigger/broadcast",
    tags: ["Triggers"],
    summary: "Trigger a workflow for every subscriber",
    description:
      "The body of `POST /v1/trigger` without `to`. The audience is every subscriber of the environment when the fan-out runs (moments after the 202), each reached once, in chunks like a topic. Cancel it and replay it by transactionId like any trigger.",
    security,
    request: { body: { required: true, content: json(BroadcastRequest) } },
    responses: { 202: { description: "Accepted", content: json(TriggerAccepted) } },
    errors: ["workflow_not_found", "workflow_inactive", "transaction_conflict", "tenant_not_found"],
  }),
  async (c) => {
    const result = await acceptBroadcast(c.get("data"), c.env, c.req.valid("json"), c.get("idempotencyKey"), {
      background: backgroundOf(c),
    });
    return c.json(acceptedBody(result) as z.infer<typeof TriggerAccepted>, 202);
  },
);

triggersRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/trigger",
    tags: ["Triggers"],
    summary: "Cancel a trigger",
    description:
      "Give the transactionId in the JSON body or as `?transactionId=`. Nothing of the trigger that was not yet sent will be sent.",
    security,
    request: {
      // The JSON body is optional here, so it is parsed in the handler rather than by the route validator.
      query: z.object({ transactionId: z.string().min(1).max(128).optional() }),
    },
    responses: { 200: { description: "The trigger's state after the call", content: json(CancelResult) } },
    errors: ["transaction_not_found", ...JSON_BODY_CODES],
  }),
  async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as unknown;
    const fromBody = body === undefined ? undefined : CancelRequest.safeParse(body);
    if (fromBody && !fromBody.success)
      throw new ApiError("validation_failed", "The request does not match the expected schema.", fieldErrors(fromBody.error.issues));
    const transactionId = fromBody?.data.transactionId ?? c.req.valid("query").transactionId;
    if (!transactionId) {
      throw new ApiError("validation_failed", "Give the transactionId in the body or as ?transactionId=.", [
        { path: "transactionId", message: "Required" },
      ]);
    }
    const outcome = await cancelByTransactionId(c.get("data"), c.env, transactionId);
    if (!outcome) throw new ApiError("transaction_not_found", `No trigger with transactionId "${transactionId}" in this environment.`);
    return c.json(outcome, 200);
  },
);

triggersRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/trigger/{transactionId}/signals",
    tags: ["Triggers"],
    summary: "Send a signal to a trigger's wait steps",
    description:
      "Wakes the recipients of the trigger whose wait step waits for a signal of this `name` (only `subscriberId`'s, when given) and is still waiting: each such wait ends once, `matched`, and its run goes on now. A wait with an `if` is read against the signal by the recipient's run moments later. A signal counts only for waits a recipient has reached when it is sent. Send it with an `Idempotency-Key` to retry safely: a replay answers the first answer and wakes nothing again.",
    security,
    request: {
      params: z.object({ transactionId: z.string().min(1).max(128) }),
      body: { required: true, content: json(SignalRequest) },
    },
    responses: { 202: { description: "The signal was received", content: json(SignalResult) } },
    errors: ["transaction_not_found"],
  }),
  async (c) => {
    const { transactionId } = c.req.valid("param");
    const result = await signalTrigger(c.get("data"), c.env, transactionId, c.req.valid("json"));
    if (!result) throw new ApiError("transaction_not_found", `No trigger with transactionId "${transactionId}" in this environment.`);
    return c.json(result, 202);
  },
);

triggersRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/triggers",
    tags: ["Triggers"],
    summary: "List recent triggers, newest first",
    description:
      "The records the Queue consumer writes within seconds of each acceptance, so a trigger appears here a moment after its 202. `GET /v1/trigger/{transactionId}` tells what one of them waits on.",
    security,
    request: { query: TriggerQuery },
    responses: { 200: { description: "A page of triggers", content: json(TriggerList) } },
  }),
  async (c) => c.json(await c.get("data").triggers.list(c.req.valid("query")), 200),
);
