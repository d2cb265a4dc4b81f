import type { z } from "@hono/zod-openapi";
import type { RunStepRow, StepOutcomeView } from "../../engine/content";
import { redactSecrets } from "../../engine/redact";
import { HTTP_DEFAULT_TIMEOUT_MS, type HttpStep } from "../../engine/steps";
import { destinationOptions } from "../../lib/destinations";
import { contextFor, type Recipient } from "../recipients/recipients-state";
import { type Attempt, type RenderedRequest, renderRequest, sendRequest } from "./http-request";
import { HTTP_MAX_ATTEMPTS, HTTP_MAX_RETRY_AFTER_SECONDS, HTTP_PARALLEL_REQUESTS, HTTP_RETRY_DELAYS_SECONDS } from "./http-limits";
import type { ControlRun, ControlRunner } from "./runner";

type Fetch = z.infer<typeof HttpStep>;

/** A network error, a timeout, 408, 429 and 5xx may pass: they are tried again. Any other answer is final. */
const retryable = (attempt: Attempt) =>
  attempt.kind === "no_answer" ||
  (attempt.kind === "answer" && (attempt.response.status === 408 || attempt.response.status === 429 || attempt.response.status >= 500));

/**
 * A fetch: each recipient's request rendered with its context, sent at most once per recorded
 * answer. What is recorded (the answer, the URL, an error) goes through the secret redaction
 * first; the rendered headers are never recorded at all.
 */
export const httpRunner: ControlRunner<Fetch> = {
  async run(run, step, pending): Promise<RunStepRow[]> {
    const outcomes = await mapLimited(pending, HTTP_PARALLEL_REQUESTS, (r) => fetchFor(run, step, r));
    return pending.map((r, i) => ({
      subscriberId: r.profile.subscriberId,
      stepId: step.id,
      outcome: redactSecrets(outcomes[i]!, run.loaded.secrets),
    }));
  },
  stopFor(step, outcome) {
    if (outcome.status !== "failed" || step.onError === "continue") return null;
    const error = typeof outcome.detail?.error === "string" ? `: ${outcome.detail.error}` : "";
    return { status: "failed", code: "http_failed", message: `The fetch step "${step.id}" failed (${outcome.reason})${error}` };
  },
};

async function fetchFor(run: ControlRun, step: Fetch, r: Recipient): Promise<StepOutcomeView> {
  const before = r.steps[step.id];
  const rendered = renderRequest(step.request, contextFor(r, step));
  if (!rendered.ok) return { status: "failed", reason: "render_failed", detail: { attempts: 0, error: rendered.error } };
  const request = rendered.request;
  const timeoutMs = step.timeoutMs ?? HTTP_DEFAULT_TIMEOUT_MS;
  const policy = destinationOptions(run.ctx.env);
  let attempts = before?.status === "retrying" ? Number(before.detail?.attempts ?? 0) : 0;
  for (;;) {
    const attempt = await sendRequest(request, timeoutMs, policy);
    if (attempt.kind === "refused") return failed(request, "destination_not_allowed", attempts, attempt.error);
    attempts += 1;
    if (attempt.kind === "too_large")
      return failed(request, "response_too_large", attempts, "The JSON answer is over 256 KB.", attempt.response);
    const ok = attempt.kind === "answer" && attempt.response.status >= 200 && attempt.response.status < 300;
    if (ok) return { status: "ran", response: attempt.response, detail: { ...described(request), attempts } };
    const error = attempt.kind === "answer" ? `HTTP ${attempt.response.status}` : attempt.error;
    const response = attempt.kind === "answer" ? attempt.response : undefined;
    if (!retryable(attempt) || attempts >= HTTP_MAX_ATTEMPTS) return failed(request, "http_failed", attempts, error, response);
    const scheduled = HTTP_RETRY_DELAYS_SECONDS[attempts - 1] ?? 0;
    const asked = attempt.kind === "answer" ? Math.min(attempt.retryAfterSeconds ?? 0, HTTP_MAX_RETRY_AFTER_SECONDS) : 0;
    const wait = Math.max(scheduled, asked);
    if (wait > 0) {
      const until = new Date(run.now.getTime() + wait * 1000).toISOString();
      return { status: "retrying", until, detail: { ...described(request), attempts, error } };
    }
  }
}

/** What the run view says about the request: its method and URL (redacted with the rest), never its headers or body. */
const described = (request: RenderedRequest) => ({ method: request.method, url: request.url });

function failed(
  request: RenderedRequest,
  reason: string,
  attempts: number,
  error: string,
  response?: StepOutcomeView["response"],
): StepOutcomeView {
  return { status: "failed", reason, ...(response ? { response } : {}), detail: { ...described(request), attempts, error } };
}

/** `fn` over every item, at most `limit` at a time, results in the items' order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
