import type { Context } from "hono";
import type { AppEnv, Bindings } from "../../env";
import { ApiError } from "../errors";
import { BindingRateLimiter } from "../rate-limit/binding-limiter";
import type { Decision, RateLimiter, Rule } from "../rate-limit/limiter";
import { LocalAdmission } from "../rate-limit/local-admission";
import { ratesFor } from "../rate-limit/policy";
import { UpstashRateLimiter } from "../rate-limit/upstash-limiter";

/** This isolate's count of every limit's window: it is only worth something if it outlives the request. */
const admission = new LocalAdmission();

/** Upstash when it is configured (global and exact), else the Rate Limiting bindings (per location, approximate). */
export function rateLimiterFor(env: Bindings): RateLimiter {
  const backend =
    env.UPSTASH_REDIS_REST_URL && env.UPSTASH_REDIS_REST_TOKEN
      ? new UpstashRateLimiter({ url: env.UPSTASH_REDIS_REST_URL, token: env.UPSTASH_REDIS_REST_TOKEN })
      : new BindingRateLimiter(env as unknown as Record<string, unknown>);
  return failOpen(backend);
}

/** A counter that cannot be reached must not take the API down with it: the request goes through, and the error is logged. */
export function failOpen(limiter: RateLimiter): RateLimiter {
  return {
    backend: limiter.backend,
    exact: limiter.exact,
    async limit(rule) {
      try {
        return await limiter.limit(rule);
      } catch (error) {
        console.error(
          JSON.stringify({ level: "error", message: `Rate limiter (${limiter.backend}) failed; request allowed.`, error: String(error) }),
        );
        return { success: true, resetSeconds: rule.rate.period };
      }
    },
  };
}

/** IETF draft-ietf-httpapi-ratelimit-headers: `"<policy>";q=<limit>;w=<period>` and `"<policy>";r=<remaining>;t=<reset>`. */
const policyHeader = (rule: Rule) => `"${rule.name}";q=${rule.rate.limit};w=${rule.rate.period}`;
const stateHeader = (rule: Rule, decision: Decision) =>
  `"${rule.name}";r=${decision.remaining ?? (decision.success ? rule.rate.limit : 0)};t=${decision.resetSeconds}`;

const refusedHeaders = (rule: Rule, decision: Decision) => ({
  "retry-after": String(decision.resetSeconds),
  "ratelimit-policy": policyHeader(rule),
  ratelimit: `"${rule.name}";r=0;t=${decision.resetSeconds}`,
});

function tooMany(rule: Rule, decision: Decision, detail: string): ApiError {
  return new ApiError("rate_limited", detail, undefined, { headers: refusedHeaders(rule, decision) });
}

/**
 * Counts a request that carries no key (a hosted page) against `rules`, in the same local
 * admission as keyed requests. The headers of the 429 to answer when one is spent, else null:
 * the caller renders its own refusal.
 */
export async function limitKeyless(env: Bindings, rules: readonly Rule[]): Promise<Record<string, string> | null> {
  const decisions = await admission.admit(rateLimiterFor(env), rules);
  const spent = decisions.findIndex((d) => !d.success);
  return spent < 0 ? null : refusedHeaders(rules[spent] as Rule, decisions[spent] as Decision);
}

export interface Caller {
  environmentId: string;
  slug: string;
  keyHash: string;
}

/**
 * Counts an authenticated request against its environment's and its key's limits; throws a 429
 * when either is spent. Returns the headers that describe the limits, for the response.
 */
export async function limitRequest(c: Context<AppEnv>, caller: Caller): Promise<Record<string, string>> {
  const rates = ratesFor(c.env.RATE_LIMITS, caller.slug);
  const rules: Rule[] = [
    { name: "environment", identifier: caller.environmentId, rate: rates.environment },
    { name: "key", identifier: caller.keyHash, rate: rates.key },
  ];
  const decisions = await admission.admit(rateLimiterFor(c.env), rules);
  const spent = decisions.findIndex((d) => !d.success);
  if (spent >= 0) {
    const rule = rules[spent] as Rule;
    throw tooMany(
      rule,
      decisions[spent] as Decision,
      `This ${rule.name === "key" ? "API key" : "environment"} sent more than ${rule.rate.limit} requests in ${rule.rate.period} s; retry after the time in \`Retry-After\`.`,
    );
  }
  const headers: Record<string, string> = { "ratelimit-policy": rules.map(policyHeader).join(", ") };
  if (decisions.every((d) => d.remaining !== undefined)) {
    headers.ratelimit = rules.map((rule, i) => stateHeader(rule, decisions[i] as Decision)).join(", ");
  }
  return headers;
}

/**
 * Counts a failed authentication against the client's IP. Cloudflare sets `cf-connecting-ip` on
 * every request it forwards; a request without it (a local test) is not counted.
 * Returns the 429 to answer instead of the 401 once the client is over its limit.
 */
export async function limitFailedAuth(c: Pick<Context<{ Bindings: Bindings }>, "req" | "env">): Promise<ApiError | null> {
  const ip = c.req.header("cf-connecting-ip");
  if (!ip) return null;
  const rate = ratesFor(c.env.RATE_LIMITS).authFailures;
  const rule: Rule = { name: "auth_failures", identifier: ip, rate };
  const [decision] = await admission.admit(rateLimiterFor(c.env), [rule]);
  return !decision || decision.success
    ? null
    : tooMany(rule, decision, `Too many failed authentications from this client; retry after the time in \`Retry-After\`.`);
}
