import { z } from "@hono/zod-openapi";
import type { Rate } from "./limiter";

/** `"<limit>/<period>s"`, the period 10 or 60 (what the Rate Limiting binding can count over). */
const RateText = z
  .string()
  .regex(/^[1-9]\d{0,8}\/(10|60)s$/, 'a rate is "<limit>/10s" or "<limit>/60s"')
  .transform((text): Rate => {
    const [limit, period] = text.split("/");
    return { limit: Number(limit), period: period === "10s" ? 10 : 60 };
  });

const Rates = z
  .object({
    environment: RateText.optional(),
    key: RateText.optional(),
    authFailures: RateText.optional(),
    links: RateText.optional(),
    linkIps: RateText.optional(),
    webhookActions: RateText.optional(),
  })
  .strict();
const RateLimitsConfig = z.record(z.string(), Rates);

export interface Rates {
  /** Requests per environment, over all its keys. */
  environment: Rate;
  /** Requests per API key. */
  key: Rate;
  /** Failed authentications per client IP (`cf-connecting-ip`). */
  authFailures: Rate;
  /** Requests of one unsubscribe or preference link (`/u`, `/p`), whatever their origin. */
  links: Rate;
  /** Requests of `/u` and `/p` per client IP: mail providers post one-click unsubscribes from few addresses, so it is wide. */
  linkIps: Rate;
  /** `test` and `replay` calls per webhook endpoint: each sends to, or queues for, a host the caller chose. */
  webhookActions: Rate;
}

/** Above the 10,000 triggers/s one deployment is designed for: the defaults stop runaway clients, not normal load. */
export const DEFAULT_RATES: Rates = {
  environment: { limit: 150_000, period: 10 },
  key: { limit: 100_000, period: 10 },
  authFailures: { limit: 20, period: 60 },
  links: { limit: 20, period: 60 },
  linkIps: { limit: 1000, period: 60 },
  webhookActions: { limit: 20, period: 60 },
};

type Config = z.output<typeof RateLimitsConfig>;
let parsed: { text: string; config: Config } | undefined;

/** `RATE_LIMITS` parsed once per isolate; a broken value is logged and the defaults apply (a typo must not take the API down). */
function configOf(text: string | undefined): Config {
  if (!text) return {};
  if (parsed?.text === text) return parsed.config;
  let config: Config = {};
  try {
    const result = RateLimitsConfig.safeParse(JSON.parse(text));
    if (result.success) config = result.data;
    else
      console.error(
        JSON.stringify({ level: "error", message: "RATE_LIMITS is invalid; the defaults apply.", issues: result.error.issues }),
      );
  } catch {
    console.error(JSON.stringify({ level: "error", message: "RATE_LIMITS is not JSON; the defaults apply." }));
  }
  parsed = { text, config };
  return config;
}

/**
 * The rates of one environment: the built-in defaults, then `RATE_LIMITS.default`, then
 * `RATE_LIMITS["<environment slug>"]`, each overriding only what it names.
 */
export function ratesFor(configText: string | undefined, slug?: string): Rates {
  const config = configOf(configText);
  return { ...DEFAULT_RATES, ...config.default, ...(slug === undefined ? {} : config[slug]) };
}
