// The Brand area's query, and the save beside the key it refreshes.
import { mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";

export type Brand = components["schemas"]["Brand"];
export type BrandInput = components["schemas"]["BrandInput"];

export const BRAND = ["brand"] as const;

export const brandQuery = (api: Api) => queryOptions({ queryKey: [...BRAND, "current"], queryFn: () => unwrap(api.GET("/v1/brand")) });

export const saveBrandMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (body: BrandInput) => unwrap(api.PUT("/v1/brand", { body })),
    onSuccess: (_saved, _input, _result, { client }) => void client.invalidateQueries({ queryKey: BRAND }),
  });

export const mintPreviewLink = (api: Api, subscriberId: string) =>
  unwrap(api.POST("/v1/subscribers/{subscriberId}/preference-link", { params: { path: { subscriberId } } }));
