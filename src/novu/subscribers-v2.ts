// `@novu/api`'s subscriber calls (`/v2/subscribers…`); its bulk and credentials calls use the v1 routes.
import { z } from "@hono/zod-openapi";
import { ApiError } from "../lib/errors";
import { createRouter, json } from "../lib/openapi";
import { SubscriberIdParam } from "../features/subscribers/preferences-schemas";
import { NovuErrorBody, novuErrorBody } from "./errors";
import { NovuSubscriberInput } from "./inputs";
import { channelFlags, mergePreferences, NovuPreferencesV2, readPreferences, toNovuPreferences } from "./preferences";
import { novuRoute } from "./routing";
import { routeDeleteSubscriber, routeGetSubscriber, routeUpdateSubscriber } from "./subscriber-routes";
import { envelope, NovuSubscriber } from "./shapes";
import { readNovuSubscriber, writeNovuSubscriber } from "./subscriber-store";

export const novuSubscribersV2Routes = createRouter();

novuSubscribersV2Routes.openapi(
  novuRoute({
    method: "post",
    path: "/v2/subscribers",
    summary: "Create a subscriber (Novu)",
    description: "Creates or updates, as `POST /sub` does; with `?failIfExists=true` an existing subscriber is a 409.",
    request: {
      query: z.object({
        failIfExists: z.enum(["true", "false"]).optional().openapi({ description: "`true`: 409 when the subscriber exists." }),
      }),
      body: { required: true, content: json(NovuSubscriberInput) },
    },
    responses: {
      201: { description: "The subscriber", content: json(envelope(NovuSubscriber)) },
      409: {
        description:
          "With `failIfExists=true`, the subscriber exists: Novu's error body (`code` `subscriber_exists`) merged with the existing subscriber, which is what Novu's SDK reads.",
        content: json(NovuSubscriber.extend(NovuErrorBody.shape).openapi("NovuSubscriberExists")),
      },
    },
    errors: ["destination_not_allowed"],
  }),
  async (c) => {
    const { subscriberId, ...fields } = c.req.valid("json");
    if (c.req.valid("query").failIfExists === "true") {
      const existing = await readNovuSubscriber(c.var.data, subscriberId);
      if (existing) {
        const problem = new ApiError("subscriber_exists", `A subscriber "${subscriberId}" already exists.`).toProblem(c.get("requestId"));
        return c.json({ ...existing, ...novuErrorBody(problem, c.req.path) }, 409);
      }
    }
    const { subscriber } = await writeNovuSubscriber(c.var.data, c.env, subscriberId, fields);
    return c.json({ data: subscriber }, 201);
  },
);

routeGetSubscriber(
  novuSubscribersV2Routes,
  "v2",
  "Push tokens and webhook URLs are masked, as `GET /v1/subscribers/{subscriberId}` shows them.",
);

routeUpdateSubscriber(novuSubscribersV2Routes, "v2", "patch", "Fields left out keep their value; `null` clears one.");

routeDeleteSubscriber(
  novuSubscribersV2Routes,
  "v2",
  "Erases the subscriber as `DELETE /v1/subscribers/{subscriberId}` does (GDPR art. 17).",
);

novuSubscribersV2Routes.openapi(
  novuRoute({
    method: "get",
    path: "/v2/subscribers/{subscriberId}/preferences",
    summary: "Get a subscriber's preferences (Novu)",
    description: "The global channel flags, and an entry per workflow the subscriber has overrides for.",
    request: { params: SubscriberIdParam },
    responses: { 200: { description: "The preferences", content: json(envelope(NovuPreferencesV2)) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const prefs = await readPreferences(c.var.data, c.req.valid("param").subscriberId);
    return c.json({ data: toNovuPreferences(prefs) }, 200);
  },
);

const PreferencesPatch = z
  .object({
    channels: z.record(z.string(), z.boolean()).optional(),
    workflowId: z
      .string()
      .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "Use a workflow key.")
      .optional(),
  })
  .openapi("NovuPreferencesPatch", { example: { channels: { email: true, sms: false } } });

novuSubscribersV2Routes.openapi(
  novuRoute({
    method: "patch",
    path: "/v2/subscribers/{subscriberId}/preferences",
    summary: "Update a subscriber's preferences (Novu)",
    description:
      "Without `workflowId` the channel flags are global; with it, they apply to that workflow. `schedule` and `context` are ignored.",
    request: { params: SubscriberIdParam, body: { required: true, content: json(PreferencesPatch) } },
    responses: { 200: { description: "The preferences after the update", content: json(envelope(NovuPreferencesV2)) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { channels = {}, workflowId } = c.req.valid("json");
    const flags = channelFlags(channels);
    const update = workflowId ? { workflows: { [workflowId]: flags } } : { channels: flags };
    const merged = await mergePreferences(c.var.data, c.env, c.req.valid("param").subscriberId, update, "api");
    return c.json({ data: toNovuPreferences(merged) }, 200);
  },
);
