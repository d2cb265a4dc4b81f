// Novu's `/v1/events/trigger*`: translated into Clarion's trigger requests and accepted by the
// same service as `POST /v1/trigger`.
import { z } from "@hono/zod-openapi";
import { validationError } from "../lib/errors";
import { createRouter, json } from "../lib/openapi";
import { BroadcastRequest, TriggerRequest } from "../features/triggers/schemas";
import { acceptBroadcast, acceptBulk, acceptTrigger, cancelByTransactionId } from "../features/triggers/service";
import { NovuBroadcastInput, NovuBulkTriggerInput, NovuTriggerInput, toTriggerBody } from "./inputs";
import { novuRoute } from "./routing";
import { envelope, NovuTriggerResponse, toNovuTrigger } from "./shapes";
import { backgroundOf } from "../features/environments/auth";

export const novuEventsRoutes = createRouter();

const TRIGGER_ERRORS = [
  "workflow_not_found",
  "workflow_inactive",
  "topic_not_found",
  "no_valid_recipients",
  "transaction_conflict",
  "tenant_not_found",
] as const;

/** Clarion's schema checks the translated body: its field paths are Clarion's, which name the same fields. */
function parsed<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (!result.success) throw validationError(result.error.issues);
  return result.data;
}

novuEventsRoutes.openapi(
  novuRoute({
    method: "post",
    path: "/v1/events/trigger",
    summary: "Trigger a workflow (Novu)",
    description: "`POST /v1/trigger` with Novu's body (`name`, `to`, `payload`, `overrides`, `transactionId`, `actor`) and answer.",
    request: { body: { required: true, content: json(NovuTriggerInput) } },
    responses: { 201: { description: "Accepted", content: json(envelope(NovuTriggerResponse)) } },
    errors: [...TRIGGER_ERRORS],
  }),
  async (c) => {
    const request = parsed(TriggerRequest, toTriggerBody(c.req.valid("json")));
    const accepted = await acceptTrigger(c.get("data"), c.env, request, c.get("idempotencyKey"), {
      background: backgroundOf(c),
    });
    return c.json({ data: toNovuTrigger(accepted) }, 201);
  },
);

novuEventsRoutes.openapi(
  novuRoute({
    method: "post",
    path: "/v1/events/trigger/bulk",
    summary: "Trigger up to 100 workflows (Novu)",
    description: 'Each event is accepted on its own; one that fails answers `acknowledged: false`, `status: "error"` and its reason.',
    request: { body: { required: true, content: json(NovuBulkTriggerInput) } },
    responses: { 201: { description: "One answer per event, in order", content: json(envelope(z.array(NovuTriggerResponse))) } },
  }),
  async (c) => {
    const { events } = c.req.valid("json");
    const bodies = events.map((event) => {
      const novu = NovuTriggerInput.safeParse(event);
      return novu.success ? toTriggerBody(novu.data) : event;
    });
    const outcomes = await acceptBulk(c.get("data"), c.env, bodies, c.get("idempotencyKey"), undefined, {
      background: backgroundOf(c),
    });
    const data = outcomes.map((o) =>
      "transactionId" in o ? toNovuTrigger(o) : { acknowledged: false, status: "error" as const, error: [o.detail] },
    );
    return c.json({ data }, 201);
  },
);

novuEventsRoutes.openapi(
  novuRoute({
    method: "post",
    path: "/v1/events/trigger/broadcast",
    summary: "Trigger a workflow for every subscriber (Novu)",
    description: "`POST /v1/trigger/broadcast` with Novu's body and answer.",
    request: { body: { required: true, content: json(NovuBroadcastInput) } },
    responses: { 201: { description: "Accepted", content: json(envelope(NovuTriggerResponse)) } },
    errors: ["workflow_not_found", "workflow_inactive", "transaction_conflict", "tenant_not_found"],
  }),
  async (c) => {
    const request = parsed(BroadcastRequest, toTriggerBody(c.req.valid("json")));
    const accepted = await acceptBroadcast(c.get("data"), c.env, request, c.get("idempotencyKey"), {
      background: backgroundOf(c),
    });
    return c.json({ data: toNovuTrigger(accepted) }, 201);
  },
);

novuEventsRoutes.openapi(
  novuRoute({
    method: "delete",
    path: "/v1/events/trigger/{transactionId}",
    summary: "Cancel a trigger (Novu)",
    description:
      "`DELETE /v1/trigger` by path. `data` is `true` when this call cancelled something not yet sent; `false` when the trigger is unknown, already cancelled or complete.",
    request: {
      params: z.object({
        transactionId: z
          .string()
          .min(1)
          .max(128)
          .openapi({ param: { name: "transactionId", in: "path" } }),
      }),
    },
    responses: { 200: { description: "Whether anything was cancelled", content: json(envelope(z.boolean())) } },
  }),
  async (c) => {
    const outcome = await cancelByTransactionId(c.get("data"), c.env, c.req.valid("param").transactionId);
    return c.json({ data: outcome?.status === "cancelled" }, 200);
  },
);
