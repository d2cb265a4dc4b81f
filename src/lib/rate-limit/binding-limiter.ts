import type { Decision, Rate, RateLimiter, Rule } from "./limiter";
import { secondsToWindowEnd } from "./local-admission";

/**
 * The binding a rate is enforced with. A binding has one fixed limit and period, set in
 * wrangler.toml, so each rate in use needs its own `[[ratelimits]]` entry, named for the rate:
 * `RATE_LIMIT_<limit>_PER_<period>S`. Identifiers carry their rule's name, so rules of the same
 * rate share a binding without sharing counters.
 */
export const bindingName = (rate: Rate) => `RATE_LIMIT_${rate.limit}_PER_${rate.period}S`;

const isRateLimit = (value: unknown): value is RateLimit =>
  typeof value === "object" && value !== null && typeof (value as { limit?: unknown }).limit === "function";

const warned = new Set<string>();

export class BindingRateLimiter implements RateLimiter {
  readonly backend = "binding";
  readonly exact = false;

  constructor(private readonly bindings: Record<string, unknown>) {}

  async limit(rule: Rule): Promise<Decision> {
    const name = bindingName(rule.rate);
    const binding = this.bindings[name];
    if (!isRateLimit(binding)) {
      // A missing tier must not take the API down: the rule is skipped, and said so once per isolate.
      if (!warned.has(name)) {
        warned.add(name);
        console.warn(
          JSON.stringify({ level: "warn", message: `No rate limiting binding ${name}: the ${rule.name} limit is not enforced.` }),
        );
      }
      return { success: true, resetSeconds: rule.rate.period };
    }
    const { success } = await binding.limit({ key: `${rule.name}:${rule.identifier}` });
    // The binding says nothing of its window; it counts in windows aligned to the clock, as the local count does.
    return { success, resetSeconds: success ? rule.rate.period : secondsToWindowEnd(rule.rate.period, Date.now()) };
  }
}
