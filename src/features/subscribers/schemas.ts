import { z } from "@hono/zod-openapi";
import { ChatAddress, PushAddress } from "../../contract/recipients";
import { BulkItemError } from "../../lib/errors";

export const Subscriber = z
  .object({
    subscriberId: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    firstName: z.string().nullable(),
    lastName: z.string().nullable(),
    avatar: z.string().nullable(),
    locale: z.string().nullable(),
    timezone: z.string().nullable(),
    data: z.record(z.string(), z.unknown()).nullable(),
    channels: z.object({ push: z.array(PushAddress), chat: z.array(ChatAddress) }),
    createdAt: z.iso.datetime(),
    updatedAt: z.iso.datetime(),
  })
  .openapi("Subscriber");
export type Subscriber = z.infer<typeof Subscriber>;

export const MAX_BULK_SUBSCRIBERS = 500;

export const BulkSubscribersRequest = z
  .object({ subscribers: z.array(z.unknown()).min(1).max(MAX_BULK_SUBSCRIBERS) })
  .openapi("BulkSubscribersRequest", {
    description: `1 to ${MAX_BULK_SUBSCRIBERS} SubscriberInput objects; each is validated and written on its own.`,
  });

export const BulkSubscribersResult = z
  .object({
    created: z.array(z.string()),
    updated: z.array(z.string()),
    failed: z.array(BulkItemError.extend({ subscriberId: z.string().nullable() })),
  })
  .openapi("BulkSubscribersResult");
export type BulkSubscribersResult = z.infer<typeof BulkSubscribersResult>;
