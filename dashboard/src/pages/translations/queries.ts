// The Translations area's queries, and the writes beside the keys they refresh.
import { mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";

export type Translation = components["schemas"]["Translation"];
export type TranslationStatus = components["schemas"]["TranslationStatus"];

export const TRANSLATIONS = ["translations"] as const;

export const localesQuery = (api: Api) =>
  queryOptions({ queryKey: [...TRANSLATIONS, "list"], queryFn: () => unwrap(api.GET("/v1/translations")) });

export const statusQuery = (api: Api) =>
  queryOptions({ queryKey: [...TRANSLATIONS, "status"], queryFn: () => unwrap(api.GET("/v1/translations/status")) });

export const localeQuery = (api: Api, locale: string) =>
  queryOptions({
    queryKey: [...TRANSLATIONS, "one", locale],
    queryFn: () => unwrap(api.GET("/v1/translations/{locale}", { params: { path: { locale } } })),
  });

/** Replaces a locale's keys (nested JSON, as imported); the grid and status refresh. */
export const saveLocaleMutation = (api: Api) =>
  mutationOptions({
    mutationFn: ({ locale, keys }: { locale: string; keys: Record<string, unknown> }) =>
      unwrap(api.PUT("/v1/translations/{locale}", { params: { path: { locale } }, body: { keys } })),
    onSuccess: (_saved, _input, _result, { client }) => void client.invalidateQueries({ queryKey: TRANSLATIONS }),
  });
