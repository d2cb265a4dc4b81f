import { z } from "@hono/zod-openapi";
import { ACTIVITY_TYPES, PREFERENCE_CHANGE_REASONS } from "../../contract/subscriber-activity";
import { SUPPRESSION_REASONS } from "../../contract/suppressions";
import { pageOf, pageQuery } from "../../lib/pagination";
import { SubscriberPreferencesUpdate } from "./preferences-schemas";

// The cursor is the (time, id) of the last entry of a page, opaque to clients so the order can change later.
const encode = (text: string) => btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");

export const encodeActivityCursor = (createdAt: number, id: string) => encode(`a:${createdAt}:${id}`);

export function decodeActivityCursor(cursor: string): { createdAt: number; id: string } | null {
  try {
    const match = /^a:(\d{1,15}):([a-z]{3}_[0-9a-z]{1,40})$/.exec(atob(cursor.replaceAll("-", "+").replaceAll("_", "/")));
    return match ? { createdAt: Number(match[1]), id: match[2]! } : null;
  } catch {
    return null;
  }
}

export const ActivityQuery = pageQuery(100).extend({
  cursor: z
    .string()
    .max(200)
    .refine((cursor) => decodeActivityCursor(cursor) !== null, "Not a cursor of this list: pass the `nextCursor` of the previous page.")
    .optional()
    .openapi({ description: "The `nextCursor` of the previous page." }),
});

export const SubscriberActivity = z
  .object({
    id: z.string().openapi({ example: "act_01936f0e6c2a7b3c9d4e5f60718293a4" }),
    type: z.enum(ACTIVITY_TYPES).openapi({
      description:
        "`created` and `updated`: the profile was written through the API, or by an Inbox session (`reason: inbox`). `preferences_changed`: see `reason` and `preferences`. `suppressed`: one of the subscriber's addresses is on the suppression list (see `channel`, `reason`).",
    }),
    reason: z
      .enum([...PREFERENCE_CHANGE_REASONS, ...SUPPRESSION_REASONS])
      .nullable()
      .openapi({
        description:
          "For `created` and `updated`: `inbox` when an Inbox session wrote the profile, else null. For `preferences_changed`: `one_click` (RFC 8058 unsubscribe), `preference_page` (the hosted page), `api` (the team's backend, native or Novu-shaped) or `inbox` (the subscriber, in the Inbox's preferences). For `suppressed`: why the address is suppressed.",
      }),
    channel: z.string().nullable().openapi({ description: "For `suppressed`: the channel of the suppressed address." }),
    // For `preferences_changed`: only the flags that changed, as an update names them (`null`: follows the global flag again).
    preferences: z.object(SubscriberPreferencesUpdate.shape).nullable(),
    createdAt: z.iso.datetime(),
  })
  .openapi("SubscriberActivity");
export type SubscriberActivity = z.infer<typeof SubscriberActivity>;

export const SubscriberActivityPage = pageOf(SubscriberActivity).openapi("SubscriberActivityPage");
export type SubscriberActivityPage = z.infer<typeof SubscriberActivityPage>;
