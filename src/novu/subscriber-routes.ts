// The subscriber routes Novu's v1 and v2 APIs answer alike, registered on each version's router.
import type { createRouter } from "../lib/openapi";
import { json } from "../lib/openapi";
import { SubscriberIdParam } from "../features/subscribers/preferences-schemas";
import { NovuSubscriberUpdate } from "./inputs";
import { novuRoute } from "./routing";
import { envelope, NovuDeleted, NovuSubscriber } from "./shapes";
import { eraseNovuSubscriber, readNovuSubscriber, subscriberMissing, updateNovuSubscriber } from "./subscriber-store";

type Router = ReturnType<typeof createRouter>;

/** `GET /<version>/subscribers/{subscriberId}`: the subscriber, push tokens and webhook URLs masked. */
export function routeGetSubscriber(router: Router, version: "v1" | "v2", description: string) {
  router.openapi(
    novuRoute({
      method: "get",
      path: `/${version}/subscribers/{subscriberId}`,
      summary: "Get a subscriber (Novu)",
      description,
      request: { params: SubscriberIdParam },
      responses: { 200: { description: "The subscriber", content: json(envelope(NovuSubscriber)) } },
      errors: ["subscriber_not_found"],
    }),
    async (c) => {
      const { subscriberId } = c.req.valid("param");
      const found = await readNovuSubscriber(c.var.data, subscriberId);
      if (!found) throw subscriberMissing(subscriberId);
      return c.json({ data: found }, 200);
    },
  );
}

/** `DELETE /<version>/subscribers/{subscriberId}`: the subscriber erased (GDPR art. 17). */
export function routeDeleteSubscriber(router: Router, version: "v1" | "v2", description: string) {
  router.openapi(
    novuRoute({
      method: "delete",
      path: `/${version}/subscribers/{subscriberId}`,
      summary: "Delete a subscriber (Novu)",
      description,
      request: { params: SubscriberIdParam },
      responses: { 200: { description: "Deleted", content: json(envelope(NovuDeleted)) } },
      errors: ["subscriber_not_found"],
    }),
    async (c) => {
      const { subscriberId } = c.req.valid("param");
      return c.json(await eraseNovuSubscriber(c.var.data, c.env, subscriberId), 200);
    },
  );
}

/** `PUT /v1/…` or `PATCH /v2/subscribers/{subscriberId}`: fields left out keep their value. */
export function routeUpdateSubscriber(router: Router, version: "v1" | "v2", method: "put" | "patch", description: string) {
  router.openapi(
    novuRoute({
      method,
      path: `/${version}/subscribers/{subscriberId}`,
      summary: "Update a subscriber (Novu)",
      description,
      request: { params: SubscriberIdParam, body: { required: true, content: json(NovuSubscriberUpdate) } },
      responses: { 200: { description: "The subscriber", content: json(envelope(NovuSubscriber)) } },
      errors: ["subscriber_not_found", "destination_not_allowed"],
    }),
    async (c) => {
      const { subscriberId } = c.req.valid("param");
      return c.json({ data: await updateNovuSubscriber(c.var.data, c.env, subscriberId, c.req.valid("json")) }, 200);
    },
  );
}
