import { bound } from "../batch";
import { triggers } from "../schema";

// D1's trigger records, kept readable after the log took new ones (delivery/writes/trigger-writes.ts):
// a trigger recorded here before the upgrade is finished here, by a statement bound by hand rather
// than built by drizzle (see ../row-insert.ts for the CPU it saves).

/** The statuses a trigger never leaves. */
const TERMINAL = "('cancelled', 'completed', 'failed')";

/** Triggers finished per statement: two bound parameters each, and the status and time, within D1's 100. */
const FINISHED_PER_STATEMENT = 45;

/** The finishing statement's text per number of triggers. */
const finishTexts = new Map<number, string>();
const finishText = (count: number) => {
  let text = finishTexts.get(count);
  if (text === undefined) {
    const keys = Array.from({ length: count }, () => "(?, ?)").join(", ");
    text =
      `update "triggers" set "status" = ?, "updated_at" = ? ` +
      `where (("triggers"."environment_id", "triggers"."transaction_id") IN (VALUES ${keys}) and "triggers"."status" not in ${TERMINAL})`;
    finishTexts.set(count, text);
  }
  return text;
};

/** Moves recorded triggers to `status` unless they already have a terminal one, `FINISHED_PER_STATEMENT` a statement. */
export function finishedTriggers(
  d1: D1Database,
  status: "completed" | "failed",
  now: Date,
  keys: readonly { environmentId: string; transactionId: string }[],
): D1PreparedStatement[] {
  const set = [triggers.status.mapToDriverValue(status), triggers.updatedAt.mapToDriverValue(now)];
  const statements: D1PreparedStatement[] = [];
  for (let start = 0; start < keys.length; start += FINISHED_PER_STATEMENT) {
    const part = keys.slice(start, start + FINISHED_PER_STATEMENT);
    const params: unknown[] = [...set];
    for (const key of part) params.push(key.environmentId, key.transactionId);
    statements.push(bound(d1, finishText(part.length), params));
  }
  return statements;
}
