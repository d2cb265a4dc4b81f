import { and, count, desc, eq, lt } from "drizzle-orm";
import type { Db } from "../../db/client";
import { proposals } from "../../db/schema";
import type { ProposalStatus } from "../../contract/proposals";
import type { Actor } from "../../env";
import { idCursor } from "../../lib/cursor";
import { keysetPage } from "../../lib/pagination";
import type { Proposal } from "./schemas";

type Row = typeof proposals.$inferSelect;
export type NewProposal = Omit<
  typeof proposals.$inferInsert,
  "environmentId" | "decidedByType" | "decidedById" | "decidedByName" | "decidedAt" | "appliedVersion" | "rejectReason"
>;

const actorOf = (type: Actor["type"] | null, id: string | null, name: string | null) =>
  type === null || name === null ? null : { type, id, name };

export const toProposal = (row: Row): Proposal => ({
  id: row.id,
  resource: row.resource,
  key: row.key,
  status: row.status,
  baseVersion: row.baseVersion,
  content: row.content,
  patch: (row.patch as Proposal["patch"]) ?? null,
  note: row.note,
  diff: row.diff as Proposal["diff"],
  validation: row.validation,
  preview: (row.preview as Proposal["preview"]) ?? null,
  proposedBy: { type: row.proposedByType, id: row.proposedById, name: row.proposedByName },
  createdAt: row.createdAt.toISOString(),
  decidedBy: actorOf(row.decidedByType, row.decidedById, row.decidedByName),
  decidedAt: row.decidedAt?.toISOString() ?? null,
  appliedVersion: row.appliedVersion,
  rejectReason: row.rejectReason,
});

/** Proposals of one environment: made once, then decided once (the decision only lands on a pending one). */
export function proposalsRepository(db: Db, environmentId: string) {
  const mine = eq(proposals.environmentId, environmentId);
  const byId = (id: string) => and(mine, eq(proposals.id, id));
  return {
    async insert(values: NewProposal): Promise<Proposal> {
      const [row] = await db
        .insert(proposals)
        .values({ ...values, environmentId })
        .returning();
      return toProposal(row!);
    },

    async find(id: string): Promise<Proposal | null> {
      const [row] = await db.select().from(proposals).where(byId(id)).limit(1);
      return row ? toProposal(row) : null;
    },

    /** Newest first. */
    async page(status: ProposalStatus | undefined, limit: number, cursor?: string) {
      const [before] = idCursor.read(cursor) ?? [];
      const rows = await db
        .select()
        .from(proposals)
        .where(and(mine, status ? eq(proposals.status, status) : undefined, before ? lt(proposals.id, before) : undefined))
        .orderBy(desc(proposals.id))
        .limit(limit + 1);
      const page = keysetPage(rows, limit, (last) => idCursor.encode([last.id]));
      return { data: page.rows.map(toProposal), nextCursor: page.nextCursor };
    },

    async pendingCount(): Promise<number> {
      const [row] = await db
        .select({ n: count() })
        .from(proposals)
        .where(and(mine, eq(proposals.status, "pending")));
      return row?.n ?? 0;
    },

    /** Null when it was no longer pending: another decision won. */
    async decide(
      id: string,
      decision: { status: "applied"; appliedVersion: number } | { status: "rejected"; reason: string | null },
      actor: Actor,
      at = new Date(),
    ): Promise<Proposal | null> {
      const [row] = await db
        .update(proposals)
        .set({
          status: decision.status,
          decidedByType: actor.type,
          decidedById: actor.id,
          decidedByName: actor.name,
          decidedAt: at,
          ...(decision.status === "applied" ? { appliedVersion: decision.appliedVersion } : { rejectReason: decision.reason }),
        })
        .where(and(byId(id), eq(proposals.status, "pending")))
        .returning();
      return row ? toProposal(row) : null;
    },
  };
}
