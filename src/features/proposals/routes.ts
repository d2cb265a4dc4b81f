import { destinationOptions } from "../../lib/destinations";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { notFound } from "../../lib/errors";
import { auditContextOf } from "../audit/record";
import { Proposal, ProposalIdParam, ProposalInput, ProposalList, ProposalPageQuery, RejectInput } from "./schemas";
import { applyProposal, createProposal, rejectProposal } from "./service";

export const proposalsRoutes = createRouter();

const tags = ["Proposals"];

proposalsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/proposals",
    tags,
    summary: "Propose a change",
    description:
      "Records a change to a workflow, layout, partial or locale's translations for a person to apply, without changing anything live. `content` is the whole resource as its `PUT` takes it; `patch` an RFC 6902 patch over its current content. The content is checked as a save would check it: problems are in `validation.errors` (with field paths) and the proposal is still made (it cannot be applied until they are fixed). `diff` is the RFC 6902 patch from the current version (`baseVersion`; null for a key that does not exist yet, which applying creates) and `preview` the rendered content.",
    security,
    request: { body: { required: true, content: json(ProposalInput) } },
    responses: { 201: { description: "The proposal, pending", content: json(Proposal) } },
    errors: ["proposal_patch_failed"],
  }),
  async (c) => {
    const proposal = await createProposal(c.var.data, c.req.valid("json"), {
      actor: c.var.actor,
      destinations: destinationOptions(c.env),
    });
    return c.json(proposal, 201);
  },
);

proposalsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/proposals",
    tags,
    summary: "List proposals",
    description: "Newest first, optionally in one state; `pending` counts the environment's pending proposals whatever the filter.",
    security,
    request: { query: ProposalPageQuery },
    responses: { 200: { description: "A page of proposals", content: json(ProposalList) } },
  }),
  async (c) => {
    const { status, limit, cursor } = c.req.valid("query");
    const [page, pending] = await Promise.all([c.var.data.proposals.page(status, limit, cursor), c.var.data.proposals.pendingCount()]);
    return c.json({ ...page, pending }, 200);
  },
);

proposalsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/proposals/{id}",
    tags,
    summary: "Get a proposal",
    security,
    request: { params: ProposalIdParam },
    responses: { 200: { description: "The proposal", content: json(Proposal) } },
    errors: ["proposal_not_found"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const proposal = await c.var.data.proposals.find(id);
    if (!proposal) throw notFound("proposal_not_found", `proposal "${id}"`);
    return c.json(proposal, 200);
  },
);

proposalsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/proposals/{id}/apply",
    tags,
    summary: "Apply a proposal",
    description:
      "Saves the proposed content as `PUT` with `If-Match: baseVersion` would (or creates the resource when `baseVersion` is null): one new version, with one audit entry whose `proposalId` names the proposal. 409 `proposal_stale` when the resource changed since; 422 `proposal_invalid` when its content does not pass the save's checks.",
    security,
    request: { params: ProposalIdParam },
    responses: { 200: { description: "The proposal, applied: `appliedVersion` is the version made", content: json(Proposal) } },
    errors: ["proposal_not_found", "proposal_not_pending", "proposal_stale", "proposal_invalid"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const proposal = await applyProposal(c.var.data, id, { context: auditContextOf(c), destinations: destinationOptions(c.env) });
    return c.json(proposal, 200);
  },
);

proposalsRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/proposals/{id}/reject",
    tags,
    summary: "Reject a proposal",
    description: "Marks it rejected, with an optional reason. Nothing else changes.",
    security,
    request: { params: ProposalIdParam, body: { required: false, content: json(RejectInput) } },
    responses: { 200: { description: "The proposal, rejected", content: json(Proposal) } },
    errors: ["proposal_not_found", "proposal_not_pending"],
  }),
  async (c) => {
    const { id } = c.req.valid("param");
    const { reason } = c.req.valid("json") ?? {};
    return c.json(await rejectProposal(c.var.data, id, { actor: c.var.actor, ...(reason ? { reason } : {}) }), 200);
  },
);
