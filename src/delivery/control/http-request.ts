import type { StepOutcomeView, TemplateContext } from "../../engine/content";
import type { HttpStep } from "../../engine/steps";
import { renderText } from "../../engine/templates";
import { checkDestination, type DestinationOptions } from "../../lib/destinations";
import { retryAfterSeconds } from "../../providers/http";
import type { z } from "@hono/zod-openapi";
import { MAX_JSON_BODY_BYTES, MAX_TEXT_BODY_CHARS, RESPONSE_HEADER_PREFIX, RESPONSE_HEADERS } from "./http-limits";
import { timedCall } from "../../lib/connection-slots";

type Request = z.infer<typeof HttpStep>["request"];
export type FetchResponse = NonNullable<StepOutcomeView["response"]>;

/** A request as rendered for one recipient: sent as is, never recorded as is (its headers may hold secrets). */
export interface RenderedRequest {
  method: string;
  url: string;
  headers: Headers;
  body?: string;
}

/** Renders the step's url, headers and body (a JSON object's string values at any depth) with the recipient's context. */
export function renderRequest(
  request: Request,
  context: TemplateContext,
): { ok: true; request: RenderedRequest } | { ok: false; error: string } {
  const failures: string[] = [];
  const text = (source: string, where: string) => {
    const rendered = renderText(source, context);
    if (rendered.ok) return rendered.text;
    failures.push(`${where}: ${rendered.message}`);
    return "";
  };
  const url = text(request.url, "url").trim();
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers ?? {})) {
    // A line break in a rendered value would be refused by fetch anyway; say which header instead.
    const rendered = text(value, `headers.${name}`).replace(/[\r\n]+/g, " ");
    try {
      headers.set(name, rendered);
    } catch {
      // Characters a header cannot carry (outside Latin-1): the value itself is never quoted, it may hold a secret.
      failures.push(`headers.${name}: not a valid header value`);
    }
  }
  let body: string | undefined;
  if (typeof request.body === "string") body = text(request.body, "body");
  else if (request.body !== undefined) {
    const walk = (v: unknown, where: string): unknown => {
      if (typeof v === "string") return text(v, where);
      if (Array.isArray(v)) return v.map((item, i) => walk(item, `${where}.${i}`));
      if (v !== null && typeof v === "object")
        return Object.fromEntries(Object.entries(v).map(([k, item]) => [k, walk(item, `${where}.${k}`)]));
      return v;
    };
    body = JSON.stringify(walk(request.body, "body"));
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  if (failures.length) return { ok: false, error: `Liquid: ${failures.join("; ")}` };
  // GET and DELETE carry no body here: fetch refuses one on GET, and servers ignore it on DELETE.
  const carriesBody = request.method !== "GET" && request.method !== "DELETE";
  return { ok: true, request: { method: request.method, url, headers, ...(carriesBody && body !== undefined ? { body } : {}) } };
}

/** What one attempt came to: an answer (any status), or no answer (network error, timeout, refused destination). */
export type Attempt =
  | { kind: "answer"; response: FetchResponse; retryAfterSeconds?: number }
  | { kind: "too_large"; response: FetchResponse }
  | { kind: "no_answer"; error: string }
  | { kind: "refused"; error: string };

/**
 * Sends the request once. Redirects are not followed (a 3xx is the answer), so headers holding a
 * secret never reach a host the policy has not judged; the destination is judged here, on the
 * rendered URL, before anything leaves.
 */
export async function sendRequest(request: RenderedRequest, timeoutMs: number, destinations: DestinationOptions): Promise<Attempt> {
  const verdict = checkDestination(request.url, destinations);
  if (!verdict.ok) return { kind: "refused", error: `The destination is not allowed: ${verdict.reason}.` };
  // One timer for the request and its answer, started once it has one of the invocation's connections (lib/connection-slots.ts).
  return timedCall(timeoutMs, (signal) => attempt(verdict.url.href, request, timeoutMs, signal));
}

async function attempt(href: string, request: RenderedRequest, timeoutMs: number, signal: AbortSignal): Promise<Attempt> {
  let res: Response;
  try {
    res = await fetch(href, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      redirect: "manual",
      signal,
    });
  } catch (error) {
    const name = (error as Error).name;
    return {
      kind: "no_answer",
      error:
        name === "TimeoutError" || name === "AbortError"
          ? `No answer within ${timeoutMs} ms.`
          : `Could not reach it: ${(error as Error).message}`,
    };
  }
  try {
    return await readResponse(res);
  } catch (error) {
    return { kind: "no_answer", error: `The answer broke off: ${(error as Error).message}` };
  }
}

const ALLOWED: ReadonlySet<string> = new Set(RESPONSE_HEADERS);

function allowedHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const [name, value] of headers) {
    if (ALLOWED.has(name) || name.startsWith(RESPONSE_HEADER_PREFIX)) kept[name] = value;
  }
  return kept;
}

const isJson = (contentType: string | null) => contentType !== null && /^application\/([\w.+-]+\+)?json\b/i.test(contentType.trim());

async function readResponse(res: Response): Promise<Attempt> {
  const headers = allowedHeaders(res.headers);
  const base = { status: res.status, headers };
  const json = isJson(res.headers.get("content-type"));
  const limit = json ? MAX_JSON_BODY_BYTES : MAX_TEXT_BODY_CHARS * 4;
  const { bytes, cut } = await readAtMost(res, limit);
  const retryAfter = retryAfterSeconds(res.headers.get("retry-after"));
  const extra = retryAfter !== undefined ? { retryAfterSeconds: retryAfter } : {};
  if (json && cut) return { kind: "too_large", response: { ...base, body: null } };
  const text = new TextDecoder().decode(bytes);
  if (json && text.trim() !== "") {
    try {
      return { kind: "answer", response: { ...base, body: JSON.parse(text) as unknown }, ...extra };
    } catch {
      // Said to be JSON and is not: keep what it is, as text.
    }
  }
  return { kind: "answer", response: { ...base, body: text.slice(0, MAX_TEXT_BODY_CHARS) }, ...extra };
}

/** The body's first `limit` bytes, and whether there was more: the rest is never read into memory. */
async function readAtMost(res: Response, limit: number): Promise<{ bytes: Uint8Array; cut: boolean }> {
  if (!res.body) return { bytes: new Uint8Array(), cut: false };
  const declared = Number(res.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limit) {
    await res.body.cancel();
    return { bytes: new Uint8Array(), cut: true };
  }
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      break;
    }
  }
  const bytes = new Uint8Array(Math.min(size, limit));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.byteLength - offset);
    bytes.set(part, offset);
    offset += part.byteLength;
    if (offset >= bytes.byteLength) break;
  }
  return { bytes, cut: size > limit };
}
