import { mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";

export type PromotionDiff = components["schemas"]["PromotionDiff"];
export type WorkflowPromotionDiff = components["schemas"]["WorkflowPromotionDiff"];
export type ContentPromotionDiff = components["schemas"]["ContentPromotionDiff"];
export type PromotionResult = components["schemas"]["PromotionResult"];

/** Every difference asked for: a promotion changes the target, so all of them are refreshed. */
export const PROMOTION_DIFF = ["promotion-diff"] as const;

/** What promoting from one environment to another would change: workflows, their layouts and partials, the brand, locales; variables and integrations. */
export const promotionDiffQuery = (api: Api, from: string, to: string) =>
  queryOptions({
    queryKey: [...PROMOTION_DIFF, from, to],
    queryFn: () => unwrap(api.GET("/v1/admin/promotions/diff", { params: { query: { from, to } } })),
  });

/** What a promotion copies: workflows by key (their layouts and partials go with them), the brand or not, and locales. */
export interface PromotionChoice {
  workflows: string[];
  brand: boolean;
  locales: string[];
}

export const promote = (api: Api, from: string, to: string, choice: PromotionChoice, dryRun: boolean) =>
  unwrap(
    api.POST("/v1/admin/promotions", {
      body: { from, to, workflows: choice.workflows, brand: choice.brand, translations: choice.locales, dryRun },
    }),
  );

/** Only what is new or different in the source can be promoted; a promotion never deletes. */
export const promotable = (w: { status: string }) => w.status === "added" || w.status === "changed";

/** Promotes `keys` (or only plans it, `dryRun`); a real promotion refreshes the difference. */
export const promoteMutation = (api: Api, from: string, to: string) =>
  mutationOptions({
    mutationFn: ({ choice, dryRun }: { choice: PromotionChoice; dryRun: boolean }) => promote(api, from, to, choice, dryRun),
    onSuccess: (result, _input, _r, { client }) => {
      if (!result.dryRun) void client.invalidateQueries({ queryKey: PROMOTION_DIFF });
    },
  });
