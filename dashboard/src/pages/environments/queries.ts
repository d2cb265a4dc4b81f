// The Environments area (admin only): the environments, their keys, and each one's Inbox and
// preference-page settings, with the writes beside the keys they refresh.
import { infiniteQueryOptions, mutationOptions, type QueryClient, queryOptions } from "@tanstack/react-query";
import { type Api, inEnvironment, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";
import type { McpScope } from "../../../../src/contract/api-keys";

export type ApiKey = components["schemas"]["ApiKey"];
export type InAppSettings = components["schemas"]["InAppSettings"];
export type PreferencePageBranding = components["schemas"]["PreferencePageBranding"];
// What the branding form sends: translations are left out, so saving the branding keeps them.
export type PreferencePageBrandingUpdate = components["schemas"]["PreferencePageBrandingUpdate"];

// The environment page shows the environment in its address, whichever one the header has chosen:
// every call here names it.

export const inAppSettingsQuery = (api: Api, slug: string) =>
  queryOptions({
    queryKey: ["admin", "in-app", slug],
    queryFn: () => unwrap(api.GET("/v1/in-app/settings", inEnvironment(slug))),
  });

export const setHmacRequired = (api: Api, slug: string, hmacRequired: boolean) =>
  unwrap(api.PATCH("/v1/in-app/settings", { ...inEnvironment(slug), body: { hmacRequired } }));

export type SessionProfileWrites = "create_only" | "always";

export const setSessionProfileWrites = (api: Api, slug: string, sessionProfileWrites: SessionProfileWrites) =>
  unwrap(api.PATCH("/v1/in-app/settings", { ...inEnvironment(slug), body: { sessionProfileWrites } }));

export const rotateInboxSecret = (api: Api, slug: string) => unwrap(api.POST("/v1/in-app/settings/rotate-secret", inEnvironment(slug)));

export const brandingQuery = (api: Api, slug: string) =>
  queryOptions({
    queryKey: ["admin", "branding", slug],
    queryFn: () => unwrap(api.GET("/v1/preference-links/settings", inEnvironment(slug))),
  });

export const saveBranding = (api: Api, slug: string, body: PreferencePageBrandingUpdate) =>
  unwrap(api.PATCH("/v1/preference-links/settings", { ...inEnvironment(slug), body }));

export const rotateLinkSecret = (api: Api, slug: string) => unwrap(api.POST("/v1/preference-links/rotate-secret", inEnvironment(slug)));

export const mintPreferenceLink = (api: Api, slug: string, subscriberId: string) =>
  unwrap(api.POST("/v1/subscribers/{subscriberId}/preference-link", { ...inEnvironment(slug), params: { path: { subscriberId } } }));

/** The list of environments: refreshed when one is created or deleted. */
export const ENVIRONMENTS = ["admin", "environments"] as const;
/** One environment's keys, whatever the filter: refreshed by every key write. */
export const keysKey = (slug: string) => ["admin", "keys", slug] as const;

export const environmentsQuery = (api: Api) =>
  infiniteQueryOptions({
    queryKey: ENVIRONMENTS,
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/admin/environments", { params: { query: { limit: 100, cursor: pageParam } } })),
    ...CURSOR_PAGES,
  });

export const environmentQuery = (api: Api, slug: string) =>
  queryOptions({
    queryKey: ["admin", "environment", slug],
    queryFn: () => unwrap(api.GET("/v1/admin/environments/{slug}", { params: { path: { slug } } })),
  });

export const keysQuery = (api: Api, slug: string, includeRevoked: boolean) =>
  queryOptions({
    queryKey: [...keysKey(slug), includeRevoked],
    queryFn: () =>
      unwrap(
        api.GET("/v1/admin/environments/{slug}/keys", {
          params: { path: { slug }, query: { limit: 100, includeRevoked: includeRevoked ? "true" : "false" } },
        }),
      ),
    // An environment has a handful: the first hundred are all of them.
    select: (page) => page.data,
  });

export const createEnvironment = (api: Api, body: { name: string; slug: string }) => unwrap(api.POST("/v1/admin/environments", { body }));

export const deleteEnvironment = (api: Api, slug: string) =>
  unwrap(api.DELETE("/v1/admin/environments/{slug}", { params: { path: { slug } } }));

/** A new key: an API key, or with `kind: "mcp"` a key for /mcp and the tools of its scopes. */
export type NewKeyBody = { name: string; expiresAt?: string; kind: "api" | "mcp"; scopes?: McpScope[] };

export const createKey = (api: Api, slug: string, body: NewKeyBody) =>
  unwrap(api.POST("/v1/admin/environments/{slug}/keys", { params: { path: { slug } }, body }));

export const revokeKey = (api: Api, id: string) => unwrap(api.POST("/v1/admin/keys/{id}/revoke", { params: { path: { id } } }));

export const rotateKey = (api: Api, id: string, overlapHours: number) =>
  unwrap(api.POST("/v1/admin/keys/{id}/rotate", { params: { path: { id } }, body: { overlapHours } }));

/** Creates an environment; the list is read again before the page moves on. */
export const createEnvironmentMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (body: { name: string; slug: string }) => createEnvironment(api, body),
    onSuccess: (_created, _body, _result, { client }) => client.invalidateQueries({ queryKey: ENVIRONMENTS }),
  });

export const deleteEnvironmentMutation = (api: Api, slug: string) =>
  mutationOptions({
    mutationFn: () => deleteEnvironment(api, slug),
    onSuccess: (_answer, _v, _result, { client }) => client.invalidateQueries({ queryKey: ENVIRONMENTS }),
  });

/** A new key of the environment; its keys are read again. */
export const createKeyMutation = (api: Api, slug: string) =>
  mutationOptions({
    mutationFn: (body: NewKeyBody) => createKey(api, slug, body),
    onSuccess: (_created, _body, _result, { client }) => client.invalidateQueries({ queryKey: keysKey(slug) }),
  });

export const revokeKeyMutation = (api: Api, slug: string) =>
  mutationOptions({
    mutationFn: (key: ApiKey) => revokeKey(api, key.id),
    onSuccess: (_answer, _key, _result, { client }) => client.invalidateQueries({ queryKey: keysKey(slug) }),
  });

export const rotateKeyMutation = (api: Api, slug: string) =>
  mutationOptions({
    mutationFn: ({ key, overlapHours }: { key: ApiKey; overlapHours: number }) => rotateKey(api, key.id, overlapHours),
    onSuccess: (_rotation, _input, _result, { client }) => client.invalidateQueries({ queryKey: keysKey(slug) }),
  });

/** The Inbox settings as a write answered them. */
const storeInAppSettings = (client: QueryClient, api: Api, slug: string, next: InAppSettings) =>
  client.setQueryData(inAppSettingsQuery(api, slug).queryKey, next);

export const hmacRequiredMutation = (api: Api, slug: string) =>
  mutationOptions({
    mutationFn: (required: boolean) => setHmacRequired(api, slug, required),
    onSuccess: (next, _required, _result, { client }) => storeInAppSettings(client, api, slug, next),
  });

export const sessionProfileWritesMutation = (api: Api, slug: string) =>
  mutationOptions({
    mutationFn: (writes: SessionProfileWrites) => setSessionProfileWrites(api, slug, writes),
    onSuccess: (next, _writes, _result, { client }) => storeInAppSettings(client, api, slug, next),
  });

/** A new Inbox HMAC secret, shown at once from the answer. */
export const rotateInboxSecretMutation = (api: Api, slug: string) =>
  mutationOptions({
    mutationFn: () => rotateInboxSecret(api, slug),
    onSuccess: async (next, _v, _result, { client }) => {
      // Only a replay (an Idempotency-Key, which the dashboard never sends) comes without the secret.
      if ("hmacSecret" in next) storeInAppSettings(client, api, slug, next);
      else await client.invalidateQueries({ queryKey: inAppSettingsQuery(api, slug).queryKey });
    },
  });

export const saveBrandingMutation = (api: Api, slug: string) =>
  mutationOptions({
    mutationFn: (body: PreferencePageBrandingUpdate) => saveBranding(api, slug, body),
    onSuccess: (next, _body, _result, { client }) => client.setQueryData(brandingQuery(api, slug).queryKey, next),
  });
