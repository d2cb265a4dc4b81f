import type { FailureKind, SendOutcome } from "./types";

/** Seconds to wait from a Retry-After header: delta-seconds or an HTTP date. */
export function retryAfterSeconds(value: string | null, now = Date.now()): number | undefined {
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return Math.max(0, seconds);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - now) / 1000));
}

/** The default classification of an HTTP failure: 429/408/5xx retry, other 4xx are permanent. */
export const classifyStatus = (status: number): FailureKind =>
  status === 429 || status === 408 || status >= 500 ? "retryable" : "permanent";

export const failure = (kind: FailureKind, code: string, message: string, retryAfter?: number): SendOutcome => ({
  ok: false,
  kind,
  code,
  message,
  ...(retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {}),
});

/**
 * fetch for adapters: a network error or the integration's timeout becomes a retryable outcome
 * instead of an exception, so a provider that hangs never holds up a batch.
 */
export async function providerFetch(url: string, init: RequestInit, signal: AbortSignal): Promise<Response | SendOutcome> {
  try {
    return await fetch(url, { ...init, signal });
  } catch (error) {
    if (signal.aborted) return failure("retryable", "timeout", "The provider did not answer within its timeout.");
    return failure("retryable", "network_error", `Could not reach the provider: ${(error as Error).message}`);
  }
}

export const isOutcome = (value: Response | SendOutcome): value is SendOutcome => !(value instanceof Response);

/** Reads an error body as text for the message, capped so a huge HTML error page stays small. */
export async function errorText(response: Response): Promise<string> {
  const text = await response.text().catch(() => "");
  return text.slice(0, 500);
}

export const joinUrl = (base: string, path: string) => `${base.replace(/\/+$/, "")}${path}`;
