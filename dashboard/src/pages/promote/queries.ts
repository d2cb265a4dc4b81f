import { mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";

export type PromotionDiff = components["schemas"]["PromotionDiff"];
export type WorkflowPromotionDiff = components["schemas"]["WorkflowPromotionDiff"];
export type PromotionResult = components["schemas"]["PromotionResult"];

/** Every difference asked for: a promotion changes the target, so all of them are refreshed. */
export const PROMOTION_DIFF = ["promotion-diff"] as const;

/** What promoting from one environment to another would change, workflow by workflow, with variables and integrations. */
export const promotionDiffQuery = (api: Api, from: string, to: string) =>
  queryOptions({
    queryKey: [...PROMOTION_DIFF, from, to],
    queryFn: () => unwrap(api.GET("/v1/admin/promotions/diff", { params: { query: { from, to } } })),
  });

/** `content`: also copy the brand and every added or changed locale. */
export const promote = (api: Api, from: string, to: string, workflows: string[], dryRun: boolean, content = false) =>
  unwrap(
    api.POST("/v1/admin/promotions", {
      body: { from, to, workflows, dryRun, brand: content, ...(content ? { translations: "all" as const } : {}) },
    }),
  );

/** Only what is new or different in the source can be promoted; a promotion never deletes. */
export const promotable = (w: WorkflowPromotionDiff) => w.status === "added" || w.status === "changed";

/** Promotes `keys` (or only plans it, `dryRun`); a real promotion refreshes the difference. */
export const promoteMutation = (api: Api, from: string, to: string) =>
  mutationOptions({
    mutationFn: ({ keys, dryRun }: { keys: string[]; dryRun: boolean }) => promote(api, from, to, keys, dryRun),
    onSuccess: (result, _input, _r, { client }) => {
      if (!result.dryRun) void client.invalidateQueries({ queryKey: PROMOTION_DIFF });
    },
  });
