import type { RouteConfig } from "@hono/zod-openapi";
import type { ErrorCode } from "../lib/errors";
import { apiRoute, json, security } from "../lib/openapi";
import { NovuErrorBody } from "./errors";

export const NOVU_TAG = "Novu compatibility";

const NOVU_NOTE =
  "Novu's path, body and answer (`{ data }`), served by Clarion's own logic. Errors are Novu's error body (`statusCode`, `message`, `error`), with Clarion's `code` beside it.";

type Responses = RouteConfig["responses"];

/** `apiRoute` documents problem documents; on `/novu` the same statuses answer Novu's error body. */
export function asNovuErrors(responses: Responses): Responses {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const problem = "content" in response && response.content?.["application/problem+json"];
      return [
        status,
        problem
          ? { description: (response.description ?? "").replace("Problem (RFC 9457)", "Novu error"), content: json(NovuErrorBody) }
          : response,
      ];
    }),
  );
}

/** `apiRoute` for a Novu route: its tag, the key, a description that says what it is, Novu's error body. */
export function novuRoute<const R extends Omit<RouteConfig, "security"> & { errors?: readonly ErrorCode[] }>(config: R) {
  const route = apiRoute({
    ...config,
    tags: [NOVU_TAG],
    security,
    description: config.description ? `${config.description}\n\n${NOVU_NOTE}` : NOVU_NOTE,
  });
  // Only the error statuses change: the success responses, which type the handlers, are as given.
  return { ...route, responses: asNovuErrors(route.responses) as typeof route.responses };
}

export { json, NovuErrorBody };
