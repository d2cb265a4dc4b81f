import { queryOptions } from "@tanstack/react-query";
import { api, inEnvironment, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";

export type InAppSettings = components["schemas"]["InAppSettings"];
export type PreferencePageBranding = components["schemas"]["PreferencePageBranding"];
// What the branding form sends: translations are left out, so saving the branding keeps them.
export type PreferencePageBrandingUpdate = components["schemas"]["PreferencePageBrandingUpdate"];

// The environment page shows the environment in its address, whichever one the header has chosen:
// every call here names it.

export const inAppSettingsQuery = (slug: string) =>
  queryOptions({
    queryKey: ["admin", "in-app", slug],
    queryFn: () => unwrap(api.GET("/v1/in-app/settings", inEnvironment(slug))),
  });

export const setHmacRequired = (slug: string, hmacRequired: boolean) =>
  unwrap(api.PATCH("/v1/in-app/settings", { ...inEnvironment(slug), body: { hmacRequired } }));

export const rotateInboxSecret = (slug: string) => unwrap(api.POST("/v1/in-app/settings/rotate-secret", inEnvironment(slug)));

export const brandingQuery = (slug: string) =>
  queryOptions({
    queryKey: ["admin", "branding", slug],
    queryFn: () => unwrap(api.GET("/v1/preference-links/settings", inEnvironment(slug))),
  });

export const saveBranding = (slug: string, body: PreferencePageBrandingUpdate) =>
  unwrap(api.PATCH("/v1/preference-links/settings", { ...inEnvironment(slug), body }));

export const rotateLinkSecret = (slug: string) => unwrap(api.POST("/v1/preference-links/rotate-secret", inEnvironment(slug)));

export const mintPreferenceLink = (slug: string, subscriberId: string) =>
  unwrap(api.POST("/v1/subscribers/{subscriberId}/preference-link", { ...inEnvironment(slug), params: { path: { subscriberId } } }));
