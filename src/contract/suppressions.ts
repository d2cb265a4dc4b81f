// The suppression vocabulary of the API, with no imports: the D1 schema, the zod schemas and the
// dashboard bundle all read it from here.

/** Why an address is on an environment's suppression list. */
export const SUPPRESSION_REASONS = ["hard_bounce", "complaint", "unsubscribed", "invalid_recipient"] as const;
export type SuppressionReason = (typeof SUPPRESSION_REASONS)[number];
