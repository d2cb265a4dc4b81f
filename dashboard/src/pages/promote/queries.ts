import { queryOptions } from "@tanstack/react-query";
import { api, unwrap } from "../../api/client";
import type { components } from "../../api/openapi";

export type PromotionDiff = components["schemas"]["PromotionDiff"];
export type WorkflowPromotionDiff = components["schemas"]["WorkflowPromotionDiff"];
export type PromotionResult = components["schemas"]["PromotionResult"];

/** What promoting from one environment to another would change, workflow by workflow, with variables and integrations. */
export const promotionDiffQuery = (from: string, to: string) =>
  queryOptions({
    queryKey: ["promotion-diff", from, to],
    queryFn: () => unwrap(api.GET("/v1/admin/promotions/diff", { params: { query: { from, to } } })),
  });

export const promote = (from: string, to: string, workflows: string[], dryRun: boolean) =>
  unwrap(api.POST("/v1/admin/promotions", { body: { from, to, workflows, dryRun } }));

/** Only what is new or different in the source can be promoted; a promotion never deletes. */
export const promotable = (w: WorkflowPromotionDiff) => w.status === "added" || w.status === "changed";
