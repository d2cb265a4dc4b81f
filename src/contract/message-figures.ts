import { MESSAGE_STATUSES, type MessageStatus } from "./statuses";

/**
 * Each figure counts the messages that reached its state, whatever happened after: a state is
 * reached when it, or a state that implies it, is in the message's timeline or is its status.
 * An archived in-app message was sent and delivered (read only if it was), an opened email was
 * delivered, a message a provider failed after taking it was sent and failed. The stats, the
 * analytics and their rollups all read them from here.
 */
export const STATS_FIGURES = {
  sent: ["sent", "delivered", "opened", "clicked", "bounced", "seen", "read", "archived"],
  delivered: ["delivered", "opened", "clicked", "seen", "read", "archived"],
  opened: ["opened", "clicked"],
  clicked: ["clicked"],
  seen: ["seen", "read"],
  read: ["read"],
  archived: ["archived"],
  failed: ["failed", "bounced", "undeliverable"],
} as const satisfies Record<string, readonly MessageStatus[]>;
export type Figure = keyof typeof STATS_FIGURES;
export const FIGURES = Object.keys(STATS_FIGURES) as Figure[];

/** The bits of these statuses in a message's `states` (one bit per status, in MESSAGE_STATUSES order). */
export const maskOf = (statuses: readonly MessageStatus[]) => statuses.reduce((m, s) => m | (1 << MESSAGE_STATUSES.indexOf(s)), 0);
export const FIGURE_MASKS = Object.fromEntries(FIGURES.map((f) => [f, maskOf(STATS_FIGURES[f])])) as Record<Figure, number>;

/** Statuses whose error code says why: a rollup keeps the code as the reason of messages that reached one. */
export const REASONED_STATUSES = ["failed", "bounced", "undeliverable", "skipped", "cancelled"] as const satisfies readonly MessageStatus[];
