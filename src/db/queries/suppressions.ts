import { suppressions, type SuppressionReason } from "../schema";
import { normaliseAddress } from "../../lib/normalise-address";
import { RowInsert, type RowOf } from "../row-insert";

// The suppression list as delivery and status webhooks use it; the API's view is in
// features/suppressions.

export interface SuppressionInput {
  environmentId: string;
  channel: string;
  address: string;
  reason: SuppressionReason;
  provider?: string | null;
  messageId?: string | null;
  at: Date;
}

/** Puts addresses on the list, many in one statement; one already there keeps its first reason and time. */
export const suppressionRows = new RowInsert(
  suppressions,
  ["environmentId", "address", "channel", "reason", "provider", "messageId", "createdAt"],
  { onConflict: "do nothing" },
);

/** An address as the list stores it (normalised), for `suppressionRows`. */
export const suppressionRow = (input: SuppressionInput): RowOf<typeof suppressionRows> => ({
  environmentId: input.environmentId,
  address: normaliseAddress(input.channel, input.address),
  channel: input.channel,
  reason: input.reason,
  provider: input.provider ?? null,
  messageId: input.messageId ?? null,
  createdAt: input.at,
});
