import type { Decision, RateLimiter, Rule } from "./limiter";

/**
 * The share of a window's limit one isolate admits on its own count, without asking an
 * approximate backend. An isolate that admitted that many asks for every further request, so a
 * client is refused once the backend has counted a full limit beyond what each isolate it
 * reached admitted alone (at most 10 % of the limit per isolate). Limits under 10 requests get
 * no such allowance: every request is asked.
 */
export const LOCAL_SHARE = 0.1;

/** Bounds the memory a flood of distinct identifiers can take; the oldest windows go first. */
const MAX_WINDOWS = 10_000;

interface Window {
  /** `floor(now / period)`: the backends count in windows aligned to the clock, and so does this. */
  index: number;
  count: number;
  /** The backend refused a request of this window: the rest of it is refused without asking. */
  spent: boolean;
}

const windowKey = (rule: Rule) => `${rule.name}\u0000${rule.rate.limit}/${rule.rate.period}\u0000${rule.identifier}`;

/** Whole seconds (at least 1) until the window that holds `now` ends. */
export const secondsToWindowEnd = (period: number, now: number) => {
  const ms = period * 1000;
  return Math.max(1, Math.ceil((ms - (now % ms)) / 1000));
};

/**
 * This isolate's own count of each rule's current window, in front of a backend. A window this
 * isolate alone has filled, or the backend has refused once, is refused here for the rest of it:
 * a client over its limit costs no backend call. An exact backend is still asked for every rule
 * of every other request; an approximate one (the Rate Limiting binding) is asked at most once
 * per request, for the rule nearest its limit here, and not at all while each rule is within
 * this isolate's share.
 */
export class LocalAdmission {
  private readonly windows = new Map<string, Window>();

  private windowOf(rule: Rule, now: number): Window {
    const key = windowKey(rule);
    const index = Math.floor(now / (rule.rate.period * 1000));
    const current = this.windows.get(key);
    if (current?.index === index) return current;
    if (current) this.windows.delete(key);
    else if (this.windows.size >= MAX_WINDOWS) {
      // Maps iterate in insertion order: the first entry is the oldest.
      const oldest = this.windows.keys().next().value;
      if (oldest !== undefined) this.windows.delete(oldest);
    }
    const fresh = { index, count: 0, spent: false };
    this.windows.set(key, fresh);
    return fresh;
  }

  /** Counts one request against every rule; a decision per rule, in order. */
  async admit(backend: RateLimiter, rules: readonly Rule[], now = Date.now()): Promise<Decision[]> {
    const windows = rules.map((rule) => this.windowOf(rule, now));
    const refused = (rule: Rule): Decision => ({ success: false, resetSeconds: secondsToWindowEnd(rule.rate.period, now) });
    const spent = rules.findIndex((rule, i) => windows[i]!.spent || windows[i]!.count >= rule.rate.limit);
    if (spent >= 0) return rules.map((rule, i) => (i === spent ? refused(rule) : { success: true, resetSeconds: rule.rate.period }));
    for (const w of windows) w.count++;

    const asked = backend.exact ? rules.map((_, i) => i) : nearestToLimit(rules, windows);
    const decisions: Decision[] = rules.map((rule) => ({ success: true, resetSeconds: rule.rate.period }));
    const answers = await Promise.all(asked.map((i) => backend.limit(rules[i]!)));
    asked.forEach((i, n) => {
      const answer = answers[n]!;
      decisions[i] = answer;
      if (!answer.success) windows[i]!.spent = true;
    });
    return decisions;
  }
}

/** The one rule worth asking an approximate backend about: the nearest its limit, once past this isolate's share. */
function nearestToLimit(rules: readonly Rule[], windows: readonly Window[]): number[] {
  let nearest = -1;
  let nearestShare = 0;
  rules.forEach((rule, i) => {
    const share = windows[i]!.count / rule.rate.limit;
    if (windows[i]!.count > Math.floor(rule.rate.limit * LOCAL_SHARE) && share > nearestShare) {
      nearest = i;
      nearestShare = share;
    }
  });
  return nearest < 0 ? [] : [nearest];
}
