import { notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { auditContextOf } from "../audit/record";
import { SubscriberIdParam } from "../subscribers/preferences-schemas";
import { linkSealer, linkUrls } from "../../lib/link-tokens";
import { PreferenceLink, PreferencePageBranding, PreferencePageBrandingUpdate, SecretRotated } from "./schemas";

export const preferenceLinksRoutes = createRouter();

preferenceLinksRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/subscribers/{subscriberId}/preference-link",
    tags: ["Subscribers"],
    summary: "Mint a preference-page link",
    description:
      'A signed link to the hosted preference page for a "Manage notifications" button in your app. No login is needed to use it: hand it only to that subscriber.',
    security,
    request: { params: SubscriberIdParam },
    responses: { 200: { description: "The link", content: json(PreferenceLink) } },
    errors: ["subscriber_not_found"],
  }),
  async (c) => {
    const { subscriberId } = c.req.valid("param");
    const subscriber = await c.var.data.preferencePages.subscriber({ subscriberId });
    if (subscriber === undefined) throw notFound("subscriber_not_found", `subscriber "${subscriberId}"`);
    const { secret } = await c.var.data.preferenceLinks.get();
    const seal = await linkSealer(secret, c.var.data.environmentId);
    const minted = linkUrls(c.env.PUBLIC_URL, await seal(subscriber.rowId, null));
    return c.json({ url: minted.preferencesUrl, unsubscribeUrl: minted.unsubscribeUrl, expiresAt: null }, 200);
  },
);

preferenceLinksRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/preference-links/rotate-secret",
    tags: ["Subscribers"],
    summary: "Revoke every preference and unsubscribe link",
    description: "Replaces the environment's link secret. Emails already sent keep links that no longer work: use it when links leaked.",
    security,
    responses: { 200: { description: "Rotated", content: json(SecretRotated) } },
  }),
  async (c) => {
    const now = new Date();
    await c.var.data.preferenceLinks.rotate(auditContextOf(c), now);
    return c.json({ rotatedAt: now.toISOString() }, 200);
  },
);

preferenceLinksRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/preference-links/settings",
    tags: ["Subscribers"],
    summary: "Get the preference page's branding and translations",
    security,
    responses: { 200: { description: "The branding", content: json(PreferencePageBranding) } },
  }),
  async (c) => {
    const { secret: _secret, ...branding } = await c.var.data.preferenceLinks.get();
    return c.json(branding, 200);
  },
);

preferenceLinksRoutes.openapi(
  apiRoute({
    method: "patch",
    path: "/v1/preference-links/settings",
    tags: ["Subscribers"],
    summary: "Brand and translate the preference page",
    description:
      "The name, logo and accent colour the hosted preference and unsubscribe pages show, and their texts per locale: a subscriber whose `locale` has a translation reads the pages in it, everyone else in English.",
    security,
    request: { body: { required: true, content: json(PreferencePageBrandingUpdate) } },
    responses: { 200: { description: "The branding after the update", content: json(PreferencePageBranding) } },
  }),
  async (c) => c.json(await c.var.data.preferenceLinks.brand(c.req.valid("json"), auditContextOf(c)), 200),
);
