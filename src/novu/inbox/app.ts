// Novu's Inbox protocol under `/novu/v1/inbox`: what `@novu/js` and `@novu/react` call from a
// browser. Any origin may call it (the session token, not a cookie, is the credential); no route
// here takes an environment key.
import { cors } from "hono/cors";
import { ApiError } from "../../lib/errors";
import { jsonBody } from "../../lib/middleware/json-body";
import { inboxBulkRoutes } from "./bulk-routes";
import { inboxNotificationRoutes } from "./notification-routes";
import { inboxPreferenceRoutes } from "./preference-routes";
import { inboxRouter, inboxSession } from "./routing";
import { inboxSessionRoutes } from "./session-routes";

const PREFIX = "/v1/inbox/*";

/**
 * The headers `@novu/js` 3.19.2 sends (its HttpClient): `Novu-API-Version`, `Novu-Client-Version`,
 * `Content-Type`, `Authorization`, and `Novu-Application-Identifier` in keyless mode. `Novu-User-Agent`
 * and `User-Agent` are allowed for clients that set them; no answer depends on them.
 */
const inboxCors = cors({
  origin: "*",
  allowMethods: ["GET", "POST", "PATCH", "DELETE"],
  allowHeaders: [
    "Authorization",
    "Content-Type",
    "Novu-API-Version",
    "Novu-Application-Identifier",
    "Novu-Client-Version",
    "Novu-User-Agent",
    "User-Agent",
  ],
  exposeHeaders: ["x-request-id"],
  maxAge: 600,
});

export const inboxRoutes = inboxRouter();
inboxRoutes.use(PREFIX, inboxCors);
inboxRoutes.use(PREFIX, jsonBody());
// Before the session check: starting a session is what a browser without one does.
inboxRoutes.route("/", inboxSessionRoutes);
inboxRoutes.use(PREFIX, inboxSession);
inboxRoutes.route("/", inboxNotificationRoutes);
inboxRoutes.route("/", inboxBulkRoutes);
inboxRoutes.route("/", inboxPreferenceRoutes);
// Answered here: the Novu API's key check, further on, would call an unknown Inbox path a 401.
inboxRoutes.all(PREFIX, (c) => {
  throw new ApiError("not_found", `No Inbox route for ${c.req.method} ${c.req.path}.`);
});
