// `@novu/node`'s subscriber calls (`/novu/v1/subscribers…`).
import { z } from "@hono/zod-openapi";
import { createRouter, json } from "../lib/openapi";
import { saveSubscribers } from "../features/subscribers/save";
import { SubscriberIdParam } from "../features/subscribers/preferences-schemas";
import { changeCredentials } from "./credentials";
import { NovuChannelInput, NovuSubscriberInput, toSubscriberInput } from "./inputs";
import {
  allChannels,
  channelFlags,
  mergePreferences,
  NovuChannelType,
  NovuV1Preference,
  readPreferences,
  toNovuV1Preferences,
} from "./preferences";
import { novuRoute } from "./routing";
import { routeDeleteSubscriber, routeGetSubscriber, routeUpdateSubscriber } from "./subscriber-routes";
import { envelope, NovuSubscriber } from "./shapes";
import { writeNovuSubscriber } from "./subscriber-store";

export const novuSubscribersV1Routes = createRouter();

novuSubscribersV1Routes.openapi(
  novuRoute({
    method: "post",
    path: "/v1/subscribers",
    summary: "Create or update a subscriber (Novu)",
    description: "`POST /sub` with Novu's body: `channels` is Novu's list of `{ providerId, credentials }`.",
    request: { body: { required: true, content: json(NovuSubscriberInput) } },
    responses: { 201: { description: "The subscriber", content: json(envelope(NovuSubscriber)) } },
    errors: ["destination_not_allowed"],
  }),
  async (c) => {
    const { subscriberId, ...fields } = c.req.valid("json");
    const { subscriber } = await writeNovuSubscriber(c.var.data, c.env, subscriberId, fields);
    return c.json({ data: subscriber }, 201);
  },
);

const BulkResult = z
  .object({
    created: z.array(z.object({ subscriberId: z.string() })),
    updated: z.array(z.object({ subscriberId: z.string() })),
    failed: z.array(z.object({ message: z.string(), subscriberId: z.string().optional() })),
  })
  .openapi("NovuBulkSubscribersResult");

novuSubscribersV1Routes.openapi(
  novuRoute({
    method: "post",
    path: "/v1/subscribers/bulk",
    summary: "Create or update up to 500 subscribers (Novu)",
    description: "`POST /sub/bulk` with Novu's items and answer; one bad item never fails the rest.",
    request: {
      body: {
        required: true,
        content: json(
          z.object({ subscribers: z.array(z.unknown()).min(1).max(500) }).openapi("NovuBulkSubscribersInput", {
            example: { subscribers: [{ subscriberId: "user-42", email: "ada@example.com" }, { subscriberId: "user-43" }] },
          }),
        ),
      },
    },
    responses: { 201: { description: "Per-subscriber outcome", content: json(envelope(BulkResult)) } },
  }),
  async (c) => {
    const items = c.req.valid("json").subscribers.map((item) => {
      const novu = NovuSubscriberInput.safeParse(item);
      return novu.success ? toSubscriberInput(novu.data.subscriberId, novu.data) : item;
    });
    const result = await saveSubscribers(c.var.data, c.env, items);
    const ids = (list: string[]) => list.map((subscriberId) => ({ subscriberId }));
    const failed = result.failed.map((f) => ({
      message: [f.error.detail, ...(f.error.errors ?? []).map((e) => `${e.path}: ${e.message}`)].join(" "),
      ...(f.subscriberId ? { subscriberId: f.subscriberId } : {}),
    }));
    return c.json({ data: { created: ids(result.created), updated: ids(result.updated), failed } }, 201);
  },
);

routeUpdateSubscriber(novuSubscribersV1Routes, "v1", "put", "Fields left out keep their value.");

const CredentialsInput = NovuChannelInput.openapi("NovuCredentialsInput", {
  example: { providerId: "fcm", credentials: { deviceTokens: ["fcm-device-token-1"] } },
});

for (const [method, mode, summary] of [
  ["put", "replace", "Set a provider's credentials (Novu)"],
  ["patch", "append", "Add a provider's device tokens (Novu)"],
] as const) {
  novuSubscribersV1Routes.openapi(
    novuRoute({
      method,
      path: "/v1/subscribers/{subscriberId}/credentials",
      summary,
      description:
        mode === "replace"
          ? "Replaces the subscriber's addresses for this provider; other providers' stay. `providerId` maps to Clarion's provider (`one-signal` → `onesignal`, `msteams` → `teams`, …; Novu's `slack` with only `channel` → `slack-api`)."
          : "Adds device tokens (or a chat address) for this provider to the ones the subscriber has.",
      request: { params: SubscriberIdParam, body: { required: true, content: json(CredentialsInput) } },
      responses: { 200: { description: "The subscriber", content: json(envelope(NovuSubscriber)) } },
      errors: ["subscriber_not_found", "destination_not_allowed"],
    }),
    async (c) => {
      const { providerId, credentials } = c.req.valid("json");
      const subscriber = await changeCredentials(c.var.data, c.env, c.req.valid("param").subscriberId, providerId, mode, credentials);
      return c.json({ data: subscriber }, 200);
    },
  );
}

novuSubscribersV1Routes.openapi(
  novuRoute({
    method: "delete",
    path: "/v1/subscribers/{subscriberId}/credentials/{providerId}",
    summary: "Remove a provider's credentials (Novu)",
    request: {
      params: SubscriberIdParam.extend({
        providerId: z
          .string()
          .min(1)
          .max(64)
          .openapi({ param: { name: "providerId", in: "path" } }),
      }),
    },
    responses: { 204: { description: "Removed" } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId, providerId } = c.req.valid("param");
    await changeCredentials(c.var.data, c.env, subscriberId, providerId, "remove");
    return c.body(null, 204);
  },
);

const GlobalPreferenceUpdate = z
  .object({
    enabled: z.boolean().optional(),
    preferences: z.array(z.object({ type: NovuChannelType, enabled: z.boolean() })).optional(),
  })
  .openapi("NovuGlobalPreferenceUpdate", { example: { preferences: [{ type: "sms", enabled: false }] } });

novuSubscribersV1Routes.openapi(
  novuRoute({
    method: "patch",
    path: "/v1/subscribers/{subscriberId}/preferences",
    summary: "Update global preferences (Novu)",
    description: "Each `{ type, enabled }` sets Clarion's global flag for that channel; `enabled` sets every channel.",
    request: { params: SubscriberIdParam, body: { required: true, content: json(GlobalPreferenceUpdate) } },
    responses: { 200: { description: "The global preference", content: json(envelope(z.object({ preference: z.unknown() }))) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { enabled, preferences } = c.req.valid("json");
    const flags = {
      ...(enabled === undefined ? {} : allChannels(enabled)),
      ...channelFlags(Object.fromEntries((preferences ?? []).map((p) => [p.type, p.enabled]))),
    };
    const merged = await mergePreferences(c.var.data, c.env, c.req.valid("param").subscriberId, { channels: flags }, "api");
    return c.json({ data: { preference: { enabled: true, channels: { ...merged.channels, in_app: true } } } }, 200);
  },
);

const WorkflowPreferenceUpdate = z
  .object({ channel: z.object({ type: NovuChannelType, enabled: z.boolean() }).optional(), enabled: z.boolean().optional() })
  .openapi("NovuWorkflowPreferenceUpdate", { example: { channel: { type: "email", enabled: false } } });

novuSubscribersV1Routes.openapi(
  novuRoute({
    method: "patch",
    path: "/v1/subscribers/{subscriberId}/preferences/{workflowId}",
    summary: "Update a workflow's preferences (Novu)",
    description: "`workflowId` is the workflow key. `enabled: false` turns every channel of the workflow off for the subscriber.",
    request: {
      params: SubscriberIdParam.extend({
        workflowId: z
          .string()
          .regex(/^[a-z0-9][a-z0-9._-]{0,63}$/, "Use a workflow key.")
          .openapi({ param: { name: "workflowId", in: "path" } }),
      }),
      body: { required: true, content: json(WorkflowPreferenceUpdate) },
    },
    responses: { 200: { description: "The workflow's preference", content: json(envelope(z.unknown())) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId, workflowId } = c.req.valid("param");
    const { channel, enabled } = c.req.valid("json");
    const flags = {
      ...(enabled === undefined ? {} : allChannels(enabled)),
      ...(channel ? channelFlags({ [channel.type]: channel.enabled }) : {}),
    };
    const merged = await mergePreferences(c.var.data, c.env, subscriberId, { workflows: { [workflowId]: flags } }, "api");
    const entry = toNovuV1Preferences(merged).find((p) => p.template._id === workflowId);
    return c.json({ data: entry ?? null }, 200);
  },
);

routeGetSubscriber(novuSubscribersV1Routes, "v1", "Push tokens and webhook URLs are masked.");

routeDeleteSubscriber(
  novuSubscribersV1Routes,
  "v1",
  "Erases the subscriber as Clarion's `DELETE /v1/subscribers/{subscriberId}` does (GDPR art. 17).",
);

novuSubscribersV1Routes.openapi(
  novuRoute({
    method: "get",
    path: "/v1/subscribers/{subscriberId}/preferences",
    summary: "Get a subscriber's workflow preferences (Novu)",
    description: "`{ template, preference }` for each workflow the subscriber has overrides for.",
    request: { params: SubscriberIdParam },
    responses: { 200: { description: "The preferences", content: json(envelope(z.array(NovuV1Preference))) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const prefs = await readPreferences(c.var.data, c.req.valid("param").subscriberId);
    return c.json({ data: toNovuV1Preferences(prefs) }, 200);
  },
);

novuSubscribersV1Routes.openapi(
  novuRoute({
    method: "get",
    path: "/v1/subscribers/{subscriberId}/preferences/{level}",
    summary: "Get preferences by level (Novu)",
    description:
      "`global`: the global channel flags; `template`: the per-workflow list of `GET /v1/subscribers/{subscriberId}/preferences`.",
    request: {
      params: SubscriberIdParam.extend({
        level: z
          .string()
          .min(1)
          .max(32)
          .openapi({ param: { name: "level", in: "path" }, description: "`global`, or `template` (any other level reads as `template`)." }),
      }),
    },
    responses: { 200: { description: "The preferences", content: json(envelope(z.unknown())) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId, level } = c.req.valid("param");
    const prefs = await readPreferences(c.var.data, subscriberId);
    const data =
      level === "global" ? [{ preference: { enabled: true, channels: { ...prefs.channels, in_app: true } } }] : toNovuV1Preferences(prefs);
    return c.json({ data }, 200);
  },
);
