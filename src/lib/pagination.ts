import { z } from "@hono/zod-openapi";
import type { CursorCodec } from "./cursor";

/**
 * `?limit=&cursor=` of a list endpoint; `cursor` is the `nextCursor` of the previous page, checked
 * by the list's codec (422 when it does not decode). Without a codec the list checks it itself.
 */
export const pageQuery = (max: number, cursor?: CursorCodec<readonly unknown[]>) =>
  z.object({
    limit: z.coerce.number().int().min(1).max(max).default(50),
    cursor: cursor?.param ?? z.string().optional().openapi({ description: "The `nextCursor` of the previous page." }),
  });

/** A page of `item`s; `nextCursor` is null on the last page. */
export const pageOf = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), nextCursor: z.string().nullable() });

/**
 * Keyset pagination over rows fetched with `LIMIT limit + 1`: the extra row only says that
 * another page exists, and the cursor is taken from the last row kept.
 */
export function keysetPage<Row>(rows: readonly Row[], limit: number, cursorOf: (last: Row) => string) {
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return { rows: page, nextCursor: rows.length > limit && last !== undefined ? cursorOf(last) : null };
}
