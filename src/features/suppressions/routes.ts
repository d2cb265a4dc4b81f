import { notFound } from "../../lib/errors";
import { apiRoute, createRouter, json, security } from "../../lib/openapi";
import { SuppressionAddressParam, SuppressionList, SuppressionQuery } from "./schemas";

export const suppressionsRoutes = createRouter();

suppressionsRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/suppressions",
    tags: ["Suppressions"],
    summary: "List suppressed addresses",
    description:
      "Addresses that no step sends to: hard bounces, complaints and unsubscribes reported by providers' status webhooks, and addresses a provider refused as invalid. A send to one is recorded `skipped` with reason `suppressed`, in critical workflows too. Newest first.",
    security,
    request: { query: SuppressionQuery },
    responses: { 200: { description: "A page of suppressions", content: json(SuppressionList) } },
    errors: ["bad_request"],
  }),
  async (c) => c.json(await c.var.data.suppressions.list(c.req.valid("query")), 200),
);

suppressionsRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/suppressions/{address}",
    tags: ["Suppressions"],
    summary: "Lift a suppression",
    description: "Takes the address off the list: later sends go to it again. Emails match in any case, phones in any formatting.",
    security,
    request: { params: SuppressionAddressParam },
    responses: { 204: { description: "Lifted" } },
    errors: ["suppression_not_found"],
  }),
  async (c) => {
    const { address } = c.req.valid("param");
    if (!(await c.var.data.suppressions.remove(address))) throw notFound("suppression_not_found", `suppression for "${address}"`);
    return c.body(null, 204);
  },
);
