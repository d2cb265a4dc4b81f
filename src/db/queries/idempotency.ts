import { and, eq, isNotNull, isNull, lt, or, sql } from "drizzle-orm";
import { type Claim, IN_FLIGHT_LEASE_MS, type KeyRef, type StoredAnswer } from "../../lib/idempotency-keys";
import type { Db } from "../client";
import { IDEMPOTENCY_KEY_HOURS, idempotencyKeys } from "../schema";

// Stored idempotent answers. Scopes are per environment (`environmentKeyScope`) or `admin`: the
// scope is the environment predicate, and every statement here names it.

const WINDOW_MS = IDEMPOTENCY_KEY_HOURS * 3_600_000;

/**
 * Claims a key in one statement, so two concurrent requests cannot both run: the insert wins, or
 * overwrites a row that has expired or a dead request's stale claim for the same request.
 */
export async function claimKey(db: Db, ref: KeyRef, now: number): Promise<Claim> {
  const t = idempotencyKeys;
  for (let attempt = 0; attempt < 2; attempt++) {
    const won = await db
      .insert(t)
      .values({ ...ref, createdAt: new Date(now) })
      .onConflictDoUpdate({
        target: [t.scope, t.key],
        set: {
          fingerprint: sql`excluded.fingerprint`,
          responseStatus: null,
          responseHeaders: null,
          responseBody: null,
          createdAt: sql`excluded.created_at`,
        },
        setWhere: or(
          lt(t.createdAt, new Date(now - WINDOW_MS)),
          and(isNull(t.responseStatus), lt(t.createdAt, new Date(now - IN_FLIGHT_LEASE_MS)), eq(t.fingerprint, sql`excluded.fingerprint`)),
        ),
      })
      .returning({ key: t.key });
    if (won.length > 0) return { kind: "claimed" };
    const [row] = await db
      .select()
      .from(t)
      .where(and(eq(t.scope, ref.scope), eq(t.key, ref.key)));
    // Released between the two statements: claim again.
    if (!row) continue;
    if (row.fingerprint !== ref.fingerprint) return { kind: "mismatch" };
    if (row.responseStatus === null) return { kind: "in_flight" };
    return { kind: "replay", answer: { status: row.responseStatus, headers: row.responseHeaders ?? {}, body: row.responseBody ?? "" } };
  }
  return { kind: "in_flight" };
}

const ownRow = (ref: KeyRef) =>
  and(eq(idempotencyKeys.scope, ref.scope), eq(idempotencyKeys.key, ref.key), eq(idempotencyKeys.fingerprint, ref.fingerprint));

/** Completes a claim with the answer that later requests with the key replay. */
export async function completeKey(db: Db, ref: KeyRef, answer: StoredAnswer): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ responseStatus: answer.status, responseHeaders: answer.headers, responseBody: answer.body })
    .where(and(ownRow(ref), isNull(idempotencyKeys.responseStatus)));
}

/** Stored answers of a scope whose body contains any of `needles` (as written): what an erasure must look at. */
export async function answersMentioning(db: Db, scope: string, needles: readonly string[]): Promise<{ key: string; body: string }[]> {
  if (needles.length === 0) return [];
  const t = idempotencyKeys;
  const rows = await db
    .select({ key: t.key, body: t.responseBody })
    .from(t)
    .where(
      and(eq(t.scope, scope), isNotNull(t.responseBody), or(...needles.map((needle) => sql`instr(${t.responseBody}, ${needle}) > 0`))),
    );
  return rows.flatMap((row) => (row.body === null ? [] : [{ key: row.key, body: row.body }]));
}

/** Replaces a stored answer's body (an erasure's redaction); the key keeps answering, with the new body. */
export const replaceAnswerBody = (db: Db, scope: string, key: string, body: string) =>
  db
    .update(idempotencyKeys)
    .set({ responseBody: body })
    .where(and(eq(idempotencyKeys.scope, scope), eq(idempotencyKeys.key, key)));

/** Gives a claim up, so the next request with the key runs again. */
export async function releaseKey(db: Db, ref: KeyRef): Promise<void> {
  await db.delete(idempotencyKeys).where(and(ownRow(ref), isNull(idempotencyKeys.responseStatus)));
}
