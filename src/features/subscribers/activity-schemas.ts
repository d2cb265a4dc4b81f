import { z } from "@hono/zod-openapi";
import { ACTIVITY_TYPES, PREFERENCE_CHANGE_REASONS } from "../../contract/subscriber-activity";
import { SUPPRESSION_REASONS } from "../../contract/suppressions";
import { base64UrlToText } from "../../lib/base64";
import { cursorCodec } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";
import { SubscriberPreferencesUpdate } from "./preferences-schemas";

/**
 * The (time, id) of the last entry of a page. Before 0.13 the cursor was base64url of
 * `a:<time>:<id>`, read by `legacy`.
 */
export const activityCursor = cursorCodec(
  z.tuple([z.number().int().min(0).max(999_999_999_999_999), z.string().regex(/^[a-z]{3}_[0-9a-z]{1,40}$/)]),
  {
    legacy: (cursor) => {
      const match = /^a:(\d{1,15}):([a-z]{3}_[0-9a-z]{1,40})$/.exec(base64UrlToText(cursor));
      return match ? [Number(match[1]), match[2]] : null;
    },
    maxLength: 200,
  },
);

export const ActivityQuery = pageQuery(100, activityCursor);

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
