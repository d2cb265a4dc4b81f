// The Inbox's preferences panel over Clarion's subscriber preferences: Novu's global level is
// Clarion's channel flags, its workflow level Clarion's per-workflow overrides (channel keys
// email, sms, push, chat, in_app). Critical workflows are listed on request and never changed. A
// session whose context names a tenant reads and changes the subscriber's preferences inside it.
import type { Context } from "hono";
import type { Channel } from "../../engine/steps";
import { ApiError, notFound } from "../../lib/errors";
import { json } from "../../lib/openapi";
import type { SubscriberPreferences, SubscriberPreferencesUpdate } from "../../features/subscribers/preferences-schemas";
import { mergeSessionPreferences, readSessionPreferences } from "../preferences";
import { envelope } from "../shapes";
import { toInboxWorkflow } from "./notifications";
import { fromInboxSchedule, toInboxSchedule } from "./schedule";
import { type InboxEnv, inboxRoute, inboxRouter } from "./routing";
import {
  type InboxChannels,
  InboxBulkPreferences,
  InboxPreference,
  InboxPreferencesQuery,
  InboxPreferenceUpdate,
  WorkflowIdParam,
} from "./schemas";
import { type InboxWorkflowRow, inboxWorkflows } from "./workflows-repository";

export const inboxPreferenceRoutes = inboxRouter();

// A session of a tenant's context edits the subscriber's preferences inside that tenant.
const who = (c: Context<InboxEnv>) => [c.var.data, c.get("subscriberId"), c.var.inboxContext.tenantId] as const;
const whoWrites = (c: Context<InboxEnv>) => [c.var.data, c.env, c.get("subscriberId"), c.var.inboxContext.tenantId] as const;
const workflowsOf = (c: Context<InboxEnv>) => c.var.data.repository(inboxWorkflows);

const globalPreference = (prefs: SubscriberPreferences): InboxPreference => ({
  level: "global",
  enabled: true,
  channels: prefs.channels,
  overrides: [],
  schedule: toInboxSchedule(prefs.schedule),
});

function workflowPreference(prefs: SubscriberPreferences, workflow: InboxWorkflowRow): InboxPreference {
  const own = prefs.workflows[workflow.key] ?? {};
  // A critical workflow delivers whatever the flags say: it shows every channel on.
  const channels = Object.fromEntries(
    workflow.channels.map((ch) => [ch, workflow.critical || (own[ch] ?? prefs.channels[ch])]),
  ) as InboxChannels;
  return {
    level: "template",
    enabled: workflow.channels.length === 0 || Object.values(channels).some(Boolean),
    channels,
    overrides: [],
    workflow: toInboxWorkflow(workflow.key, workflow, workflow.tags),
  };
}

/** Only the flags given, as Clarion's preference update takes them. */
const flagsOf = (body: InboxChannels): Partial<Record<Channel, boolean>> =>
  Object.fromEntries(Object.entries(body).filter(([, v]) => typeof v === "boolean"));

/** The workflows a change names, each existing and not critical. */
async function changeable(c: Context<InboxEnv>, keys: string[]): Promise<Map<string, InboxWorkflowRow>> {
  const found = await workflowsOf(c).byKeys(keys);
  for (const key of keys) {
    const workflow = found.get(key);
    if (!workflow) throw notFound("workflow_not_found", `workflow "${key}"`);
    if (workflow.critical)
      throw new ApiError("workflow_critical", `Workflow "${key}" is critical: its notifications cannot be turned off.`);
  }
  return found;
}

inboxPreferenceRoutes.openapi(
  inboxRoute({
    method: "get",
    path: "/v1/inbox/preferences",
    summary: "List preferences",
    description:
      "The global preference first, then one per active workflow (`criticality`: `nonCritical` by default, `critical` or `all`; `tags[]`: workflows with any of them), with the channels its steps use.",
    request: { query: InboxPreferencesQuery },
    responses: { 200: { description: "The preferences", content: json(envelope(InboxPreference.array())) } },
    errors: ["subscriber_not_found", "tenant_not_found"],
  }),
  async (c) => {
    const query = c.req.valid("query");
    const tags = [query["tags[]"] ?? []].flat();
    const severities = [query["severity[]"] ?? [], query.severity ?? []].flat();
    const [prefs, workflows] = await Promise.all([readSessionPreferences(...who(c)), workflowsOf(c).active()]);
    const shown = workflows.filter(
      (w) =>
        (query.criticality === "all" || w.critical === (query.criticality === "critical")) &&
        (tags.length === 0 || w.tags.some((t) => tags.includes(t))) &&
        (severities.length === 0 || severities.includes("none")),
    );
    return c.json({ data: [globalPreference(prefs), ...shown.map((w) => workflowPreference(prefs, w))] }, 200);
  },
);

inboxPreferenceRoutes.openapi(
  inboxRoute({
    method: "get",
    path: "/v1/inbox/preferences/global",
    summary: "Read the global preference",
    responses: { 200: { description: "The global preference", content: json(envelope(InboxPreference)) } },
    errors: ["subscriber_not_found", "tenant_not_found"],
  }),
  async (c) => c.json({ data: globalPreference(await readSessionPreferences(...who(c))) }, 200),
);

inboxPreferenceRoutes.openapi(
  inboxRoute({
    method: "patch",
    path: "/v1/inbox/preferences",
    summary: "Change the global preference",
    description:
      "Each channel flag given replaces the subscriber's global flag. `schedule` changes the subscriber's delivery schedule (`preferences.schedule` of the server API): `isEnabled` left out keeps the stored one, `weeklySchedule` given replaces every day. Outside it, non-critical email, SMS, push and chat wait for its next window; in-app and critical messages never wait for it.",
    request: { body: { required: true, content: json(InboxPreferenceUpdate) } },
    responses: { 200: { description: "The global preference after the change", content: json(envelope(InboxPreference)) } },
    errors: ["subscriber_not_found", "tenant_not_found"],
  }),
  async (c) => {
    const { schedule, ...flags } = c.req.valid("json");
    const update: SubscriberPreferencesUpdate = { channels: flagsOf(flags) };
    if (schedule) update.schedule = fromInboxSchedule(schedule, (await readSessionPreferences(...who(c))).schedule);
    const prefs = await mergeSessionPreferences(...whoWrites(c), update);
    return c.json({ data: globalPreference(prefs) }, 200);
  },
);

inboxPreferenceRoutes.openapi(
  inboxRoute({
    method: "patch",
    path: "/v1/inbox/preferences/bulk",
    summary: "Change several workflows' preferences",
    description: "All or nothing: one unknown or critical workflow refuses the whole change.",
    request: { body: { required: true, content: json(InboxBulkPreferences) } },
    responses: { 200: { description: "The workflows' preferences after the change", content: json(envelope(InboxPreference.array())) } },
    errors: ["subscriber_not_found", "tenant_not_found", "workflow_not_found", "workflow_critical"],
  }),
  async (c) => {
    const { preferences } = c.req.valid("json");
    const workflows = await changeable(
      c,
      preferences.map((p) => p.workflowId),
    );
    const update = Object.fromEntries(preferences.map(({ workflowId, ...flags }) => [workflowId, flagsOf(flags)]));
    const prefs = await mergeSessionPreferences(...whoWrites(c), { workflows: update });
    const data = [...new Set(preferences.map((p) => p.workflowId))].map((key) => workflowPreference(prefs, workflows.get(key)!));
    return c.json({ data }, 200);
  },
);

inboxPreferenceRoutes.openapi(
  inboxRoute({
    method: "patch",
    path: "/v1/inbox/preferences/{workflowId}",
    summary: "Change one workflow's preference",
    description: "Each channel flag given overrides the global one for this workflow.",
    request: { params: WorkflowIdParam, body: { required: true, content: json(InboxPreferenceUpdate) } },
    responses: { 200: { description: "The workflow's preference after the change", content: json(envelope(InboxPreference)) } },
    errors: ["subscriber_not_found", "tenant_not_found", "workflow_not_found", "workflow_critical"],
  }),
  async (c) => {
    const { workflowId } = c.req.valid("param");
    const workflow = (await changeable(c, [workflowId])).get(workflowId)!;
    const prefs = await mergeSessionPreferences(...whoWrites(c), { workflows: { [workflowId]: flagsOf(c.req.valid("json")) } });
    return c.json({ data: workflowPreference(prefs, workflow) }, 200);
  },
);
