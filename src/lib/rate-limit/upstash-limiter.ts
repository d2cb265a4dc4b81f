import { Ratelimit } from "@upstash/ratelimit";
import { Redis } from "@upstash/redis/cloudflare";
import type { Decision, RateLimiter, Rule } from "./limiter";

export interface UpstashConfig {
  url: string;
  token: string;
}

/** Exact counts shared by every location: a fixed window per rule in one Redis, one round trip per rule. */
export class UpstashRateLimiter implements RateLimiter {
  readonly backend = "upstash";
  readonly exact = true;
  private readonly redis: Redis;

  constructor(config: UpstashConfig) {
    this.redis = new Redis({ url: config.url, token: config.token, enableTelemetry: false, enableAutoPipelining: false });
  }

  async limit(rule: Rule): Promise<Decision> {
    const limiter = new Ratelimit({
      redis: this.redis,
      limiter: Ratelimit.fixedWindow(rule.rate.limit, `${rule.rate.period} s`),
      prefix: `clarion:rl:${rule.name}`,
      analytics: false,
      // A per-request instance has nothing to remember between requests.
      ephemeralCache: false,
    });
    const result = await limiter.limit(rule.identifier);
    return {
      success: result.success,
      remaining: result.remaining,
      resetSeconds: Math.max(1, Math.ceil((result.reset - Date.now()) / 1000)),
    };
  }
}
