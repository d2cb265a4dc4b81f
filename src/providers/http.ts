import { binaryToBase64 } from "../lib/base64";
import { checkDestination } from "../lib/destinations";
import type { FailureKind, Outbound, SendOutcome } from "./types";

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
 * instead of an exception, so a provider that hangs never holds up a batch. The destination is
 * checked against the policy before anything leaves, and redirects are never followed: a 3xx is
 * the provider's answer (a failure), so a credential cannot be bounced to another host.
 */
async function providerFetch(url: string, init: RequestInit, { signal, destinations }: Outbound): Promise<Response | SendOutcome> {
  const verdict = checkDestination(url, destinations);
  if (!verdict.ok) return failure("permanent", "destination_not_allowed", `The destination is not allowed: ${verdict.reason}.`);
  try {
    return await fetch(verdict.url.href, { ...init, redirect: "manual", signal });
  } catch (error) {
    if (signal.aborted)
      return failure("unknown", "timeout", "The provider did not answer within its timeout: it may have sent the message.");
    return failure("retryable", "network_error", `Could not reach the provider: ${(error as Error).message}`);
  }
}

const isOutcome = (value: Response | SendOutcome): value is SendOutcome => !(value instanceof Response);

export const joinUrl = (base: string, path: string) => `${base.replace(/\/+$/, "")}${path}`;

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
export const basicAuth = (username: string, password: string) => `Basic ${binaryToBase64(`${username}:${password}`)}`;

/**
 * Where a provider's status callbacks reach an integration, when the integration knows the
 * deployment's public URL: adapters that can name a callback per message send this one.
 */
export const statusWebhookUrl = (publicUrl: string, provider: string, integrationId: string) =>
  joinUrl(publicUrl, `/v1/webhooks/${provider}/${integrationId}`);

/** The fields of an `application/x-www-form-urlencoded` body, in the order they came. */
export const formEntries = (body: string): [string, string][] => [...new URLSearchParams(body)];

/** A provider's answer, read: the whole body as text, and as JSON when it is JSON. */
export interface ProviderAnswer {
  status: number;
  statusText: string;
  ok: boolean;
  headers: Headers;
  /** The whole body (a successful answer is never cut short: an id may sit past any cap). */
  text: string;
  /** `text` parsed as JSON; undefined when it is not JSON (a proxy's error page, Slack's plain `ok`). */
  json: unknown;
}

/** One HTTP request to a provider. `POST` unless `method` says otherwise. */
export interface ProviderCall {
  url: string | URL;
  method?: string;
  headers?: HeadersInit;
  body?: BodyInit | null;
}

/** How a failed answer fails, over the defaults `answerFailure` fills in. */
export interface FailureDetail {
  kind?: FailureKind;
  code?: string;
  message?: string;
  /** Present (even as undefined) to replace the Retry-After header's value. */
  retryAfterSeconds?: number | undefined;
}

/** How an adapter reads its provider's answers; everything else about a send is shared. */
export interface AnswerMapping {
  /**
   * The provider's message id in a 2xx answer, or the outcome the 2xx stands for (Vonage, Slack's
   * Web API and Expo report failures inside a 200; `malformed` when the id is missing).
   */
  success(answer: ProviderAnswer): string | SendOutcome;
  /** A non-2xx answer's failure: the detail to put over the defaults, or a whole outcome. */
  failure?(answer: ProviderAnswer): FailureDetail | SendOutcome;
}

/** Stored errors are short: a message's error is read through the API, and a body is the provider's to leak. */
export const ERROR_TEXT_LIMIT = 200;

const shortened = (text: string) => {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > ERROR_TEXT_LIMIT ? `${line.slice(0, ERROR_TEXT_LIMIT - 1)}…` : line;
};

/**
 * A body as an error message only when it is a short plain-text reason (Slack's `invalid_payload`,
 * Mailgun's `Forbidden`): an HTML page, XML or JSON that the adapter did not read a documented
 * field from becomes "", and the caller falls back to the status line.
 */
export function capped(text: string): string {
  const trimmed = text.trim();
  if (/^[<{[]/.test(trimmed) || /<\/?[a-z][^>]*>/i.test(trimmed)) return "";
  return shortened(trimmed);
}

const statusLine = (answer: Pick<ProviderAnswer, "status" | "statusText">) =>
  `The provider answered HTTP ${answer.status}${answer.statusText ? ` ${answer.statusText}` : ""}.`;

/** A 2xx answer without the id Clarion keeps: retried, since a proxy or a provider hiccup is the likely cause. */
export const malformed = (message: string) => failure("retryable", "malformed_response", message);

/**
 * fetch plus reading the answer: a network error or the integration's timeout becomes a retryable
 * outcome instead of an exception, and the body is read whole.
 */
export async function callProvider(call: ProviderCall, outbound: Outbound): Promise<ProviderAnswer | SendOutcome> {
  const response = await providerFetch(
    typeof call.url === "string" ? call.url : call.url.href,
    {
      method: call.method ?? "POST",
      ...(call.headers ? { headers: call.headers } : {}),
      ...(call.body !== undefined ? { body: call.body } : {}),
    },
    outbound,
  );
  if (isOutcome(response)) return response;
  let text: string;
  try {
    text = await response.text();
  } catch (error) {
    // The connection dropped (or the timeout struck) while the body was arriving: a failure's
    // status still classifies it, a success without its body cannot be read.
    if (!response.ok) text = "";
    else if (outbound.signal.aborted)
      return failure("unknown", "timeout", "The provider did not answer within its timeout: it may have sent the message.");
    else return failure("retryable", "network_error", `The provider's answer was cut off: ${(error as Error).message}`);
  }
  return {
    status: response.status,
    statusText: response.statusText,
    ok: response.ok,
    headers: response.headers,
    text,
    json: parseJson(text),
  };
}

export const isAnswer = (value: ProviderAnswer | SendOutcome): value is ProviderAnswer => "status" in value;

/**
 * A failed answer as an outcome: kind by status, code `http_<status>`, the adapter's reading of the
 * provider's error (else a plain-text body, else the status line) kept short, Retry-After honoured
 * — each unless `detail` says otherwise.
 */
export function answerFailure(answer: ProviderAnswer, detail: FailureDetail | SendOutcome = {}): SendOutcome {
  if ("ok" in detail) return detail.ok ? detail : { ...detail, message: shortened(detail.message) || statusLine(answer) };
  return failure(
    detail.kind ?? classifyStatus(answer.status),
    detail.code ?? `http_${answer.status}`,
    shortened(detail.message ?? capped(answer.text)) || statusLine(answer),
    "retryAfterSeconds" in detail ? detail.retryAfterSeconds : retryAfterSeconds(answer.headers.get("retry-after")),
  );
}

/** Maps a read answer to the send's outcome through the adapter's mapping. */
export function answerOutcome(answer: ProviderAnswer, mapping: AnswerMapping): SendOutcome {
  if (answer.ok) {
    const id = mapping.success(answer);
    return typeof id === "string" ? { ok: true, providerMessageId: id } : id;
  }
  return answerFailure(answer, mapping.failure?.(answer));
}

/** One send: the request as given (an adapter that signs or encrypts builds the body itself), the answer mapped. */
export async function sendRequest(call: ProviderCall & AnswerMapping, outbound: Outbound): Promise<SendOutcome> {
  const answer = await callProvider(call, outbound);
  return isAnswer(answer) ? answerOutcome(answer, call) : answer;
}

/**
 * The adapter's headers as given (their order is what goes on the wire), with a `content-type`
 * added at the end only when the adapter names none.
 */
const withContentType = (contentType: string, headers: Record<string, string> = {}) =>
  Object.keys(headers).some((name) => name.toLowerCase() === "content-type") ? headers : { ...headers, "content-type": contentType };

/** A send with a JSON body (`content-type: application/json` unless the adapter's headers say otherwise). */
export function sendJson(
  call: Omit<ProviderCall, "body" | "headers"> & AnswerMapping & { headers?: Record<string, string>; body: unknown },
  outbound: Outbound,
): Promise<SendOutcome> {
  return sendRequest({ ...call, headers: withContentType("application/json", call.headers), body: JSON.stringify(call.body) }, outbound);
}

/** A send with an `application/x-www-form-urlencoded` body (Twilio, Slack's Web API): `+` goes out as `%2B`. */
export function sendForm(
  call: Omit<ProviderCall, "body" | "headers"> & AnswerMapping & { headers?: Record<string, string>; body: URLSearchParams },
  outbound: Outbound,
): Promise<SendOutcome> {
  return sendRequest(
    { ...call, headers: withContentType("application/x-www-form-urlencoded", call.headers), body: call.body.toString() },
    outbound,
  );
}
