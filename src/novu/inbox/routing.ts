// What every Inbox route shares: its session, its documentation and its router type.
import type { RouteConfig } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import { unscopedDb } from "../../db/unscoped";
import type { Bindings, Variables } from "../../env";
import type { ErrorCode } from "../../lib/errors";
import { limitFailedAuth } from "../../lib/middleware/rate-limit";
import { apiRoute, createRouter } from "../../lib/openapi";
import { asNovuErrors } from "../routing";
import { bearerToken, type InboxSubject, verifySessionToken } from "./session-token";
import { dataOf } from "../../features/data";

export const INBOX_TAG = "Novu Inbox";

/** The session's subscriber and the part of their feed it sees (its context; its tenant for preferences). */
export type InboxEnv = {
  Bindings: Bindings;
  Variables: Variables & { subscriberId: string; inboxContext: Pick<InboxSubject, "context" | "tenantId"> };
};

export const inboxRouter = () => createRouter<InboxEnv>();

/** The session token's subject becomes the request's environment and subscriber: nothing else is reachable. */
export const inboxSession = createMiddleware<InboxEnv>(async function inboxSession(c, next) {
  let subject: InboxSubject;
  try {
    subject = await verifySessionToken(unscopedDb(c.env), c.env.ENCRYPTION_KEY, bearerToken(c.req.header("authorization")));
  } catch (error) {
    // Guessing tokens counts as failed authentications, as guessing API keys does.
    throw (await limitFailedAuth(c)) ?? error;
  }
  c.set("data", dataOf(c.env, subject.environmentId));
  c.set("subscriberId", subject.subscriberId);
  c.set("inboxContext", { context: subject.context, tenantId: subject.tenantId });
  await next();
});

const NOTE =
  "Novu's Inbox protocol, as `@novu/js` and `@novu/react` call it (pinned: 3.19.2), for one subscriber's browser. Errors are Novu's error body (`statusCode`, `message`, `error`), with Clarion's `code` beside it.";

/** `apiRoute` for an Inbox route: its tag, the session token (`InboxSession`) unless `session: false`, Novu's error body. */
export function inboxRoute<const R extends Omit<RouteConfig, "security"> & { errors?: readonly ErrorCode[]; session?: boolean }>(
  config: R,
) {
  const { session = true, errors = [], ...rest } = config;
  // Documented without `security` so that no API-key codes (or Idempotency-Key) are implied; the session's own are named.
  const route = apiRoute({
    ...rest,
    tags: [INBOX_TAG],
    errors: session ? ["unauthorized", "rate_limited", ...errors] : ["rate_limited", ...errors],
    description: rest.description ? `${rest.description}\n\n${NOTE}` : NOTE,
  });
  return {
    ...route,
    ...(session ? { security: [{ InboxSession: [] }] } : {}),
    responses: asNovuErrors(route.responses) as typeof route.responses,
  };
}
