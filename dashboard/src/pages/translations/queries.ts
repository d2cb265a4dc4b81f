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

/** Makes `defaultLocale` the one every other falls back to (and every workflow's `t` keys must exist in). */
export const saveDefaultLocaleMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (defaultLocale: string) => unwrap(api.PUT("/v1/translations/settings", { body: { defaultLocale } })),
    onSuccess: (_saved, _input, _result, { client }) => void client.invalidateQueries({ queryKey: TRANSLATIONS }),
  });

/** A locale's last hundred versions, newest first, a deletion among them. */
export const localeVersionsQuery = (api: Api, locale: string) =>
  queryOptions({
    queryKey: [...TRANSLATIONS, "history", locale],
    queryFn: () => unwrap(api.GET("/v1/translations/{locale}/versions", { params: { path: { locale } } })),
  });

/** The API's patch over the flat keys between two versions of a locale (they never change once written). */
export const localeDiffQuery = (api: Api, locale: string, from: number, to: number) => ({
  queryKey: [...TRANSLATIONS, "history", locale, "diff", from, to] as const,
  queryFn: () => unwrap(api.GET("/v1/translations/{locale}/diff", { params: { path: { locale }, query: { from, to } } })),
});

/** Restores a version as the locale's new one, only over the version this page read (else 412, shown as a conflict). */
export const restoreLocale = (api: Api, locale: string, version: number, current: number) =>
  unwrap(
    api.POST("/v1/translations/{locale}/revert", {
      params: { path: { locale }, header: { "if-match": `"${current}"` } },
      body: { version },
    }),
  );
