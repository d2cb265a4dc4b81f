// Every request gets Clarion's own id (UUIDv7): the answer's `x-request-id`, the problem's
// `requestId`, the logs and the audit log all carry it. A caller's `X-Request-Id` is kept beside it
// (`clientRequestId`, in the audit log) and never replaces it: an id a caller chooses could name
// another request's entries, or collide with them.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../../env";
import { uuidv7 } from "../ids";

/** What a caller's id may be to be kept: short, and nothing that could forge a log line or a header. */
const KEPT = /^[\w\-=]{1,255}$/;

export const requestIds = (): MiddlewareHandler<AppEnv> =>
  async function requestIds(c, next) {
    const id = uuidv7();
    c.set("requestId", id);
    const sent = c.req.header("x-request-id");
    if (sent !== undefined && KEPT.test(sent)) c.set("clientRequestId", sent);
    c.header("x-request-id", id);
    await next();
  };
