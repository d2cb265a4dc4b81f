import { z } from "@hono/zod-openapi";
import { base64UrlToText, textToBase64Url } from "../../lib/base64";
import { cursorCodec } from "../../lib/cursor";

// The Novu layer's subscriber cursor (`next` and `previous` of `subscribers.search`): the last
// subscriberId of a page as base64url of `s:<id>`. Novu's SDKs hand it back as they got it, and it
// stays this format; it was also the native list's cursor before 0.13.
const PREFIX = "s:";

export const encodeCursor = (subscriberId: string) => textToBase64Url(PREFIX + subscriberId);

export function decodeCursor(cursor: string): string | null {
  try {
    const text = base64UrlToText(cursor);
    return text.startsWith(PREFIX) && text.length > PREFIX.length ? text.slice(PREFIX.length) : null;
  } catch {
    return null;
  }
}

export const SubscriberCursor = z
  .string()
  .max(1024)
  .refine((cursor) => decodeCursor(cursor) !== null, "Not a cursor of this list: pass the `nextCursor` of the previous page.");

/** `GET /v1/subscribers` by subscriberId; its cursors of 0.12 and before are the Novu format above. */
export const subscriberCursor = cursorCodec(z.tuple([z.string().min(1)]), {
  legacy: (cursor) => {
    const subscriberId = decodeCursor(cursor);
    return subscriberId === null ? null : [subscriberId];
  },
  maxLength: 1024,
});
