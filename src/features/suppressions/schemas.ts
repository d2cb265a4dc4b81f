import { z } from "@hono/zod-openapi";
import { SUPPRESSION_REASONS } from "../../contract/suppressions";
import { PROVIDER_CHANNELS } from "../../engine/steps";
import { base64ToBinary } from "../../lib/base64";
import { cursorCodec } from "../../lib/cursor";
import { pageOf, pageQuery } from "../../lib/pagination";

export const Suppression = z
  .object({
    address: z.string().openapi({ description: "Normalised: a lower-cased email, an E.164 phone, a push token or a chat webhook URL." }),
    channel: z.enum(PROVIDER_CHANNELS),
    reason: z.enum(SUPPRESSION_REASONS).openapi({
      description:
        "`hard_bounce`, `complaint` and `unsubscribed` come from a provider's status webhook; `invalid_recipient` from a provider's answer to a send.",
    }),
    provider: z.string().nullable(),
    messageId: z.string().nullable().openapi({ description: "The message whose report or send put the address here." }),
    createdAt: z.iso.datetime(),
  })
  .openapi("Suppression", {
    example: {
      address: "ada@example.com",
      channel: "email",
      reason: "hard_bounce",
      provider: "sendgrid",
      messageId: "msg_0193b2c4d5e6f7a8b9c0d1e2f3a4b5c6",
      createdAt: "2026-11-23T10:00:00.000Z",
    },
  });
export type Suppression = z.infer<typeof Suppression>;

/**
 * The last row's time and address (addresses may hold any character). The cursor of 0.12 and
 * before was the same tuple's JSON through `btoa` (a byte per character), read by `legacy`. The
 * repository reads it, so a bad cursor is a 400 (`bad_request`) here, and the query leaves it a plain string.
 */
export const suppressionCursor = cursorCodec(z.tuple([z.number().int(), z.string()]), {
  legacy: (cursor) => JSON.parse(base64ToBinary(cursor)),
});

export const SuppressionQuery = z
  .object({
    channel: z.enum(PROVIDER_CHANNELS).optional(),
    reason: z.enum(SUPPRESSION_REASONS).optional(),
    address: z.string().trim().min(1).max(2048).optional().openapi({ description: "One address, in any case or phone formatting." }),
  })
  .extend(pageQuery(200).shape);
export type SuppressionQuery = z.infer<typeof SuppressionQuery>;

export const SuppressionList = pageOf(Suppression).openapi("SuppressionList");
export type SuppressionList = z.infer<typeof SuppressionList>;

export const SuppressionAddressParam = z.object({
  address: z
    .string()
    .min(1)
    .max(2048)
    .openapi({ param: { name: "address", in: "path" }, example: "ada@example.com", description: "URL-encode a chat webhook URL." }),
});
