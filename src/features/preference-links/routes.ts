import { DEFAULT_BRAND } from "../../contract/brand";
import { notFound } from "../../lib/errors";
import { saveBrand } from "../brand/routes";
import { brandingOf } from "./brand-view";
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
    description:
      "Kept for existing callers: the name, logo and accent colour are the brand's `name`, `logoUrl` and `colors.primary` (`GET /v1/brand`); the translations are the pages' own.",
    security,
    responses: { 200: { description: "The branding", content: json(PreferencePageBranding) } },
  }),
  async (c) => {
    const [links, brand] = await Promise.all([c.var.data.preferenceLinks.get(), c.var.data.brand.get()]);
    return c.json(brandingOf(brand.definition, links.translations), 200);
  },
);

preferenceLinksRoutes.openapi(
  apiRoute({
    method: "patch",
    path: "/v1/preference-links/settings",
    tags: ["Subscribers"],
    summary: "Brand and translate the preference page",
    description:
      "The name, logo and accent colour the hosted preference and unsubscribe pages show, and their texts per locale: a subscriber whose `locale` has a translation reads the pages in it, everyone else in English. Kept for existing callers: the name, logo and colour are saved to the brand (`PUT /v1/brand`: `name`, `logoUrl`, `colors.primary`) as a new brand version, which emails read too.",
    security,
    request: { body: { required: true, content: json(PreferencePageBrandingUpdate) } },
    responses: { 200: { description: "The branding after the update", content: json(PreferencePageBranding) } },
  }),
  async (c) => {
    const { translations, ...fields } = c.req.valid("json");
    const links =
      translations === undefined
        ? await c.var.data.preferenceLinks.get()
        : await c.var.data.preferenceLinks.brand({ translations }, auditContextOf(c));
    let brand = (await c.var.data.brand.get()).definition;
    if (Object.keys(fields).length > 0) {
      const primary = fields.accentColor === undefined ? brand.colors.primary : (fields.accentColor ?? DEFAULT_BRAND.colors.primary);
      const saved = await saveBrand(c, {
        ...brand,
        name: fields.brandName === undefined ? brand.name : fields.brandName,
        logoUrl: fields.logoUrl === undefined ? brand.logoUrl : fields.logoUrl,
        colors: { ...brand.colors, primary },
      });
      brand = saved;
    }
    return c.json(brandingOf(brand, links.translations), 200);
  },
);
