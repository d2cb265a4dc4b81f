import type { RouteConfig } from "@hono/zod-openapi";
import type { ErrorCode } from "../../lib/errors";
import { apiRoute, json, security } from "../../lib/openapi";
import { NovuErrorBody } from "./errors";

export const NOVU_TAG = "Novu compatibility";

const NOVU_NOTE =
  "Part of the Novu compatibility layer: Novu's path, body and answer (`{ data }`), served by Clarion's own logic. Errors are problem documents, or Novu's error body (`statusCode`, `message`, `error`) when the client is a Novu SDK.";

/** `apiRoute` for a Novu route: its tag, the key, and a description that says what it is. */
export function novuRoute<const R extends Omit<RouteConfig, "security"> & { errors?: readonly ErrorCode[] }>(config: R) {
  return apiRoute({
    ...config,
    tags: [NOVU_TAG],
    security,
    description: config.description ? `${config.description}\n\n${NOVU_NOTE}` : NOVU_NOTE,
  });
}

export { json, NovuErrorBody };
