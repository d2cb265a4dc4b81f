import { z } from "@hono/zod-openapi";
import { base64UrlToText, textToBase64Url } from "./base64";
import { ApiError } from "./errors";

/**
 * The one list cursor: the base64url of the JSON of a small tuple, the keys of the last row of a
 * page (`["welcome"]`, `[1732752000000, "msg_…"]`). Clients treat it as opaque, so a list may
 * change what it keeps without breaking them. A cursor that does not decode to the list's tuple
 * (zod-checked) is the client's error, never a 500.
 */
export interface CursorCodec<T> {
  encode(value: T): string;
  /** The tuple of a cursor this list handed out (or of its format before 0.13), else null. */
  decode(cursor: string): T | null;
  /** `decode`, with a cursor that does not decode refused as a `bad_request` problem; undefined stays undefined. */
  read(cursor: string | undefined): T | undefined;
  /** `?cursor=`: a cursor that does not decode fails the query's validation (422). */
  readonly param: z.ZodOptional<z.ZodString>;
}

export const NOT_A_CURSOR = "Not a cursor of this list: pass the `nextCursor` of the previous page.";

/** Longer cursors are refused before decoding: every tuple we write is far shorter. */
const MAX_CURSOR_LENGTH = 1024;

/**
 * A list's codec for cursors of `shape`. `legacy` reads the list's cursor of 0.12 and before
 * (each list had its own format then) into the same tuple.
 * TODO(0.14): drop `legacy`: 0.13 reads the old cursors for one release (docs/reference/api.md, "Pagination").
 */
export function cursorCodec<T extends readonly unknown[]>(
  shape: z.ZodType<T>,
  options: { legacy?: (cursor: string) => unknown; maxLength?: number } = {},
): CursorCodec<T> {
  const parse = (value: unknown): T | null => {
    const parsed = shape.safeParse(value);
    return parsed.success ? parsed.data : null;
  };
  const decode = (cursor: string): T | null => {
    if (cursor.length === 0 || cursor.length > (options.maxLength ?? MAX_CURSOR_LENGTH)) return null;
    let current: T | null = null;
    try {
      current = parse(JSON.parse(base64UrlToText(cursor)));
    } catch {
      // Not this release's format: perhaps the list's old one.
    }
    if (current !== null || !options.legacy) return current;
    try {
      return parse(options.legacy(cursor));
    } catch {
      return null;
    }
  };
  const param = (options.maxLength === undefined ? z.string() : z.string().max(options.maxLength))
    .refine((cursor) => decode(cursor) !== null, NOT_A_CURSOR)
    .optional()
    .openapi({ description: "The `nextCursor` of the previous page." });
  return {
    encode: (value) => textToBase64Url(JSON.stringify(value)),
    decode,
    read(cursor) {
      if (cursor === undefined) return undefined;
      const value = decode(cursor);
      if (value === null) throw new ApiError("bad_request", NOT_A_CURSOR);
      return value;
    },
    param,
  };
}

/** A prefixed id (`msg_` and 32 hex digits: `newId`), as lists keyed by id used it for their cursor. */
export const CursorId = z.string().regex(/^[a-z]{2,3}_[0-9a-f]{32}$/);

/** The legacy reader of lists whose cursor was the last key itself: the key, if `key` accepts it. */
export const rawKey =
  (key: z.ZodType<string | number>) =>
  (cursor: string): unknown => {
    const parsed = key.safeParse(cursor);
    return parsed.success ? [parsed.data] : null;
  };

/** The cursor of lists by id (ids are time-ordered, so by creation); before 0.13 it was the id itself. */
export const idCursor = cursorCodec(z.tuple([CursorId]), { legacy: rawKey(CursorId) });
