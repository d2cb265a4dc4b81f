import { checkDestination, type DestinationOptions } from "../../../lib/destinations";
import type { SendableEndpoint } from "./repository";
import { signatureHeader } from "./signature";
import { timedCall } from "../../../lib/connection-slots";

/** Standard Webhooks / Svix: a receiver answers within 15 s or the attempt counts as failed. */
export const ATTEMPT_TIMEOUT_MS = 15_000;

/** Stored errors are short: the receiver's answer is theirs, not ours to keep. */
const ERROR_LIMIT = 200;

export type AttemptResult =
  | { status: "succeeded"; responseStatus: number; latencyMs: number }
  | { status: "failed"; responseStatus: number | null; latencyMs: number; error: string; retryable: boolean; gone: boolean };

/** Network errors, timeouts, 429 and 5xx are worth another try; other answers will not change. */
const retryableStatus = (status: number) => status === 429 || status === 408 || status >= 500;

/**
 * One signed POST of `body` to the endpoint. The destination is checked again here (the URL was
 * checked on save, but the policy may have tightened since), and redirects are never followed.
 */
export async function sendSigned(
  endpoint: SendableEndpoint,
  eventId: string,
  body: string,
  policy: DestinationOptions,
  now = Date.now(),
): Promise<AttemptResult> {
  const verdict = checkDestination(endpoint.row.url, policy);
  if (!verdict.ok)
    return {
      status: "failed",
      responseStatus: null,
      latencyMs: 0,
      error: `Not an allowed destination: ${verdict.reason}.`,
      retryable: false,
      gone: false,
    };
  const timestamp = Math.floor(now / 1000);
  const headers = {
    "content-type": "application/json",
    "user-agent": "Clarion-Webhooks/1",
    "webhook-id": eventId,
    "webhook-timestamp": String(timestamp),
    "webhook-signature": await signatureHeader(endpoint.secrets, eventId, timestamp, body),
  };
  // Its timer and latency start once it has one of the invocation's connections (lib/connection-slots.ts).
  return timedCall(ATTEMPT_TIMEOUT_MS, (signal) => post(verdict.url.href, headers, body, signal));
}

async function post(href: string, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<AttemptResult> {
  const started = Date.now();
  try {
    const res = await fetch(href, {
      method: "POST",
      headers,
      body,
      redirect: "manual",
      signal,
    });
    const latencyMs = Date.now() - started;
    if (res.status >= 200 && res.status < 300) {
      await res.body?.cancel();
      return { status: "succeeded", responseStatus: res.status, latencyMs };
    }
    const text = (await res.text().catch(() => "")).slice(0, ERROR_LIMIT);
    return {
      status: "failed",
      responseStatus: res.status,
      latencyMs,
      error: `HTTP ${res.status}${text ? `: ${text}` : ""}`,
      retryable: retryableStatus(res.status),
      gone: res.status === 410,
    };
  } catch (error) {
    const latencyMs = Date.now() - started;
    const timedOut = error instanceof DOMException && error.name === "TimeoutError";
    const message = timedOut
      ? `No answer within ${ATTEMPT_TIMEOUT_MS / 1000} s.`
      : `Could not reach the endpoint: ${(error as Error).message}`;
    return { status: "failed", responseStatus: null, latencyMs, error: message.slice(0, ERROR_LIMIT), retryable: true, gone: false };
  }
}
