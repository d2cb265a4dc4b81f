// The Proposals area's queries and its two writes, beside the keys they refresh: a decision
// changes the list, the pending count in the navigation and (an apply) the resource itself.
import { infiniteQueryOptions, mutationOptions, queryOptions } from "@tanstack/react-query";
import { type Api, unwrap } from "../../api/client";
import { CURSOR_PAGES } from "../../api/cursor-pages";
import type { components } from "../../api/openapi";

export type Proposal = components["schemas"]["Proposal"];
export type ProposalStatus = Proposal["status"];
export const STATUSES: readonly ProposalStatus[] = ["pending", "applied", "rejected"];

/** Every query of the area starts with this key. */
export const PROPOSALS = ["proposals"] as const;

/** The areas whose queries show the resource an apply changes. */
const AREA: Record<Proposal["resource"], string> = {
  workflow: "workflows",
  layout: "layouts",
  partial: "partials",
  translations: "translations",
};

export const proposalsQuery = (api: Api, status: ProposalStatus | undefined) =>
  infiniteQueryOptions({
    queryKey: [...PROPOSALS, "list", status ?? "all"],
    queryFn: ({ pageParam }) => unwrap(api.GET("/v1/proposals", { params: { query: { status, cursor: pageParam, limit: 50 } } })),
    ...CURSOR_PAGES,
  });

/** How many wait for a decision: the navigation's count. */
export const pendingCountQuery = (api: Api) =>
  queryOptions({
    queryKey: [...PROPOSALS, "pending-count"],
    queryFn: async () => (await unwrap(api.GET("/v1/proposals", { params: { query: { status: "pending", limit: 1 } } }))).pending,
    refetchInterval: 60_000,
  });

export const proposalQuery = (api: Api, id: string) =>
  queryOptions({
    queryKey: [...PROPOSALS, "one", id],
    queryFn: () => unwrap(api.GET("/v1/proposals/{id}", { params: { path: { id } } })),
  });

export const applyProposalMutation = (api: Api) =>
  mutationOptions({
    mutationFn: (proposal: Proposal) => unwrap(api.POST("/v1/proposals/{id}/apply", { params: { path: { id: proposal.id } } })),
    onSuccess: async (_applied, proposal, _result, { client }) => {
      await Promise.all([
        client.invalidateQueries({ queryKey: PROPOSALS }),
        client.invalidateQueries({ queryKey: [AREA[proposal.resource]] }),
      ]);
    },
  });

export const rejectProposalMutation = (api: Api) =>
  mutationOptions({
    mutationFn: ({ proposal, reason }: { proposal: Proposal; reason: string }) =>
      unwrap(
        api.POST("/v1/proposals/{id}/reject", {
          params: { path: { id: proposal.id } },
          body: reason.trim() ? { reason: reason.trim() } : {},
        }),
      ),
    onSuccess: (_rejected, _input, _result, { client }) => client.invalidateQueries({ queryKey: PROPOSALS }),
  });

/** Where the resource a proposal names is edited in the dashboard. */
export const resourcePath = (p: Pick<Proposal, "resource" | "key">) =>
  p.resource === "workflow"
    ? `/workflows/${encodeURIComponent(p.key)}`
    : p.resource === "translations"
      ? "/translations"
      : `/${p.resource}s/${encodeURIComponent(p.key)}`;
