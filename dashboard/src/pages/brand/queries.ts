// The Brand area's query, and the save beside the key it refreshes.
import { mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";

export type Brand = components["schemas"]["Brand"];
export type BrandInput = components["schemas"]["BrandInput"];

export const BRAND = ["brand"] as const;

export const brandQuery = (api: Api) => queryOptions({ queryKey: [...BRAND, "current"], queryFn: () => unwrap(api.GET("/v1/brand")) });

/**
 * Saves the brand only over the version the form was read at (`If-Match`): a brand changed
 * meanwhile (another tab, the API, a restore) answers 412 `brand_changed` instead of being
 * overwritten. Version 0 is no brand saved yet: nothing to match.
 */
export const saveBrandMutation = (api: Api) =>
  mutationOptions({
    mutationFn: ({ body, version }: { body: BrandInput; version: number }) =>
      unwrap(api.PUT("/v1/brand", { body, ...(version > 0 ? { params: { header: { "if-match": `"${version}"` } } } : {}) })),
    onSuccess: (_saved, _input, _result, { client }) => void client.invalidateQueries({ queryKey: BRAND }),
  });

export const mintPreviewLink = (api: Api, subscriberId: string) =>
  unwrap(api.POST("/v1/subscribers/{subscriberId}/preference-link", { params: { path: { subscriberId } } }));

/** The brand's last hundred versions, newest first, each with its whole definition. */
export const brandVersionsQuery = (api: Api) =>
  queryOptions({ queryKey: [...BRAND, "history"], queryFn: () => unwrap(api.GET("/v1/brand/versions")) });

/** The API's patch between two versions (they never change once written). */
export const brandDiffQuery = (api: Api, from: number, to: number) => ({
  queryKey: [...BRAND, "history", "diff", from, to] as const,
  queryFn: () => unwrap(api.GET("/v1/brand/diff", { params: { query: { from, to } } })),
});

/** Restores `version` as a new one, only if the brand is still at `current` (else 412 `brand_changed`). */
export const revertBrand = (api: Api, version: number, current: number) =>
  unwrap(api.POST("/v1/brand/revert", { params: { header: { "if-match": `"${current}"` } }, body: { version } }));
