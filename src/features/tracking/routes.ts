import { base64ToBytes } from "../../lib/base64";
import { unscopedDb } from "../../db/unscoped";
import { unscopedLogs } from "../../durable-objects/client/unscoped-logs";
import { ApiError } from "../../lib/errors";
import { createRouter } from "../../lib/openapi";
import { verifySignature } from "../../lib/secrets";
import { applyStatuses } from "../messages/status-repository";

export const trackingRoutes = createRouter();

const PIXEL = base64ToBytes("R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7");
const tampered = () => new ApiError("invalid_tracking_link", "This tracking link is not valid.");

trackingRoutes.get("/t/o/:token", async (c) => {
  const match = /^(msg_[0-9a-f]{32})\.([A-Za-z0-9_-]{32})\.gif$/.exec(c.req.param("token"));
  if (!match || !(await verifySignature(c.env.ENCRYPTION_KEY, `o:${match[1]}`, match[2]!))) throw tampered();
  c.executionCtx.waitUntil(
    applyStatuses(
      unscopedDb(c.env),
      unscopedLogs(c.env),
      [{ messageId: match[1]!, report: { status: "opened", at: new Date(), detail: { source: "pixel" } } }],
      c.env,
    ),
  );
  return c.body(PIXEL, 200, { "content-type": "image/gif", "cache-control": "no-store, max-age=0" });
});

trackingRoutes.get("/t/c/:token", async (c) => {
  const match = /^(msg_[0-9a-f]{32})\.([A-Za-z0-9_-]{32})$/.exec(c.req.param("token"));
  const target = c.req.query("u");
  if (!match || !target || !/^https?:\/\//.test(target)) throw tampered();
  if (!(await verifySignature(c.env.ENCRYPTION_KEY, `c:${match[1]}:${target}`, match[2]!))) throw tampered();
  await applyStatuses(
    unscopedDb(c.env),
    unscopedLogs(c.env),
    [{ messageId: match[1]!, report: { status: "clicked", at: new Date(), detail: { url: target } } }],
    c.env,
  );
  return c.redirect(target, 302);
});
