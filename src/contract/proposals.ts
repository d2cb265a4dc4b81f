// The proposals' vocabulary, with no imports: the D1 schema, the zod schemas and the dashboard read it from here.

/** What a proposal changes: a workflow, layout or partial by key, or one locale's translations. */
export const PROPOSAL_RESOURCES = ["workflow", "layout", "partial", "translations"] as const;
export type ProposalResource = (typeof PROPOSAL_RESOURCES)[number];

export const PROPOSAL_STATUSES = ["pending", "applied", "rejected"] as const;
export type ProposalStatus = (typeof PROPOSAL_STATUSES)[number];
