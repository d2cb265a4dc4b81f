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

/** A failed response as an outcome: classified by its status unless `kind` is given, Retry-After honoured. */
export const responseFailure = (response: Response, code: string, message: string, kind: FailureKind = classifyStatus(response.status)) =>
  failure(kind, code, message, retryAfterSeconds(response.headers.get("retry-after")));

/** JSON.parse that answers undefined for a body that is not JSON (a proxy's error page, Slack's plain `ok`). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The URL to call for a provider whose address is itself a URL (chat webhooks): as given, or with
 * its origin replaced by the integration's `baseUrl` (a proxy, a test server). Undefined when the
 * address is not an http(s) URL.
 */
export function addressUrl(address: string, baseUrl: string | null): URL | undefined {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return undefined;
  return baseUrl ? new URL(joinUrl(baseUrl, `${url.pathname}${url.search}`)) : url;
}

/** Seconds from now until a rate-limit reset given as Unix seconds (SendGrid's X-RateLimit-Reset). */
export function secondsUntilEpoch(value: string | null, now = Date.now()): number | undefined {
  const epoch = Number(value);
  return value && Number.isFinite(epoch) && epoch > 0 ? Math.max(0, Math.ceil(epoch - now / 1000)) : undefined;
}

/** The `Authorization` value for HTTP Basic auth (Twilio, Plivo, Vonage). */
export const basicAuth = (username: string, password: string) => `Basic ${btoa(`${username}:${password}`)}`;

/**
 * Where a provider's status callbacks reach an integration, when the integration knows the
 * deployment's public URL: adapters that can name a callback per message send this one.
 */
export const statusWebhookUrl = (publicUrl: string, provider: string, integrationId: string) =>
  joinUrl(publicUrl, `/v1/webhooks/${provider}/${integrationId}`);

/** The fields of an `application/x-www-form-urlencoded` body, in the order they came. */
export const formEntries = (body: string): [string, string][] => [...new URLSearchParams(body)];

/**
 * A response body as text: whole on success (an OAuth access token alone can pass 1 KB), capped
 * like `errorText` on failure.
 */
export const bodyText = (response: Response) => (response.ok ? response.text() : errorText(response));
