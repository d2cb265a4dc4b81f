import { cors } from "hono/cors";
import type { Context } from "hono";
import type { AppEnv } from "../../env";

/** `DASHBOARD_ORIGINS`: comma-separated origins, each exactly `scheme://host[:port]`. */
export function allowedOrigins(list: string | undefined): string[] {
  return (list ?? "")
    .split(",")
    .map((origin) => origin.trim().replace(/\/+$/, ""))
    .filter(Boolean);
}

/**
 * The dashboard built for another origin (Cloudflare Pages) calls the API cross-origin: only the
 * origins listed in `DASHBOARD_ORIGINS` may, never a wildcard. Credentials (cookies) are never
 * allowed cross-origin: such a dashboard sends `Authorization` (docs/guides/dashboard.md), and the
 * session cookie stays usable only by the Worker's own pages (environments/dashboard-session.ts).
 */
export const dashboardCors = cors({
  origin: (origin: string, c: Context<AppEnv>) => (allowedOrigins(c.env.DASHBOARD_ORIGINS).includes(origin) ? origin : null),
  allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE"],
  allowHeaders: ["Authorization", "Content-Type", "Clarion-Environment", "Idempotency-Key"],
  exposeHeaders: ["x-request-id", "ratelimit", "ratelimit-policy", "retry-after", "idempotency-replay"],
  credentials: false,
  maxAge: 600,
});
