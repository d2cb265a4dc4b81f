import { secureHeaders } from "hono/secure-headers";
import { CONTENT_SECURITY_POLICY } from "../../contract/content-security-policy";
import { createRouter } from "../../lib/openapi";

/**
 * The dashboard routes in the browser (/dashboard/workflows/x): a reload or a shared link asks the
 * Worker for a path that is no file, and gets the app's index.html, which then shows the page.
 * Static files are served before the Worker runs, so only such paths (and missing files) arrive here.
 */
export const dashboardRoutes = createRouter();

const headers = secureHeaders({
  contentSecurityPolicy: CONTENT_SECURITY_POLICY,
  xFrameOptions: "DENY",
  referrerPolicy: "no-referrer",
  xContentTypeOptions: true,
});

/** A path with an extension names a file: a missing one stays a 404 rather than becoming HTML. */
const namesAFile = (path: string) => /\.[a-z0-9]+$/i.test(path);

dashboardRoutes.get("/dashboard/*", headers, async (c, next) => {
  if (!c.env.ASSETS || namesAFile(c.req.path)) return next();
  const index = await c.env.ASSETS.fetch(new URL("/dashboard/index.html", c.req.url));
  if (!index.ok) return next();
  return c.body(await index.text(), 200, { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" });
});
