import { html } from "hono/html";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { sha256Hex } from "../../lib/crypto";
import { limitKeyless } from "../../lib/middleware/rate-limit";
import type { Rule } from "../../lib/rate-limit/limiter";
import { ratesFor } from "../../lib/rate-limit/policy";
import { page } from "./layout";

/**
 * `/u/{token}` and `/p/{token}`, GET and POST, are counted before the link is read: per link (its
 * hash, so no limiter stores a capability) and per client IP. The rates are the deployment's
 * (`RATE_LIMITS.default`): a link names its environment only once it is verified. The refusal is
 * English: the subscriber's locale is not read for a request that is refused.
 */
export const linkRateLimit = createMiddleware<AppEnv>(async (c, next) => {
  const rates = ratesFor(c.env.RATE_LIMITS);
  const rules: Rule[] = [{ name: "link", identifier: await sha256Hex(c.req.param("token") ?? ""), rate: rates.links }];
  const ip = c.req.header("cf-connecting-ip");
  if (ip) rules.push({ name: "link_ip", identifier: ip, rate: rates.linkIps });
  const refused = await limitKeyless(c.env, rules);
  if (!refused) return next();
  return page(c, 429, "Too many requests", null, html`<p>Please wait a minute, then try again.</p>`, { headers: refused });
});
