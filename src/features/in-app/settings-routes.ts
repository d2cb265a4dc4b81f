import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { InAppSettings, InAppSettingsUpdate } from "./schemas";
import { closeEndedInboxSockets } from "./session-ends";
import type { InAppSettings as Stored } from "./settings-repository";

export const settingsRoutes = createRouter();

const tags = ["In-app"];

/** What the Inbox is given: the settings and where this Clarion answers. */
function view(stored: Stored, publicUrl: string): InAppSettings {
  const base = new URL(publicUrl);
  const path = base.pathname.replace(/\/$/, "");
  const socket = `${base.protocol === "https:" ? "wss:" : "ws:"}//${base.host}${path}/novu/socket`;
  return {
    applicationIdentifier: stored.applicationIdentifier,
    hmacSecret: stored.hmacSecret,
    hmacRequired: stored.hmacRequired,
    sessionProfileWrites: stored.sessionProfileWrites,
    apiUrl: `${base.origin}${path}/novu`,
    socketUrl: socket,
  };
}

settingsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/in-app/settings",
    tags,
    summary: "Get the environment's Inbox settings",
    description: "The props the Novu Inbox components need to run against this environment, and the secret that signs subscriber hashes.",
    security,
    responses: { 200: { description: "The settings", content: json(InAppSettings) } },
  }),
  async (c) => {
    return c.json(view(await c.var.data.inAppSettings.get(), c.env.PUBLIC_URL), 200);
  },
);

settingsRoutes.openapi(
  apiRoute({
    method: "patch",
    path: "/v1/in-app/settings",
    tags,
    summary: "Change the Inbox settings",
    description:
      "`hmacRequired: false` lets a browser open any subscriber's Inbox by id: for development only. Changing `hmacRequired` ends every Inbox session issued before; `sessionProfileWrites` applies to the next session. A request that changes nothing writes nothing and ends no session.",
    security,
    request: { body: { required: true, content: json(InAppSettingsUpdate) } },
    responses: { 200: { description: "The settings after the change", content: json(InAppSettings) } },
  }),
  async (c) => {
    const settings = await c.var.data.inAppSettings.update(c.req.valid("json"), auditContextOf(c));
    closeEndedInboxSockets(c);
    return c.json(view(settings, c.env.PUBLIC_URL), 200);
  },
);

settingsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/in-app/settings/rotate-secret",
    tags,
    summary: "Rotate the Inbox HMAC secret",
    description: "Every subscriber hash made with the old secret is refused from now on; compute them again with the new one.",
    security,
    responses: { 200: { description: "The settings with the new secret", content: json(InAppSettings) } },
    secrets: ["hmacSecret"],
  }),
  async (c) => {
    const settings = await c.var.data.inAppSettings.rotateSecret(auditContextOf(c));
    closeEndedInboxSockets(c);
    return c.json(view(settings, c.env.PUBLIC_URL), 200);
  },
);
