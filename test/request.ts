import { createExecutionContext, env, SELF, waitOnExecutionContext } from "cloudflare:test";
import worker from "../src/index";
import { expect } from "vitest";
import type { paths } from "../dashboard/src/api/openapi";
import type { ErrorCode, Problem } from "../src/lib/errors";

/** The admin credential of the test runtime (vitest.config.ts binds its hash as ADMIN_KEY_HASH). */
export const ADMIN_KEY = "clarion_admin_testAdminCredential0123456789abcdef";

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][Lowercase<M>]>;
/** The methods the OpenAPI document gives `P`. */
type MethodOf<P extends keyof paths> = { [M in Method]: paths[P][Lowercase<M>] extends { responses: object } ? M : never }[Method];
type JsonContent<R> = R extends { content: { "application/json": infer B } } ? B : never;
/** The JSON body of the operation's 2xx answers, as the document (and so the zod schemas) describe it. */
type SuccessBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { responses: infer R }
    ? { [S in keyof R]: S extends 200 | 201 | 202 ? JsonContent<R[S]> : never }[keyof R]
    : never;
type RequestBody<P extends keyof paths, M extends Method> =
  Operation<P, M> extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;

interface RequestInit {
  headers?: Record<string, string>;
  rawBody?: string;
  /** Sends the request through this instead of `SELF` (a Worker with held Queues: test/webhook-queue.ts). */
  via?: { fetch(path: string, init: globalThis.RequestInit): Promise<Response> };
}

/**
 * Calls the Worker like a client does: JSON in, JSON (or problem+json) out. A path written as it
 * stands in the OpenAPI document (`"/v1/subscribers"`, not a filled-in template) with a body that
 * matches its schema gets the operation's typed success body; anything else (a malformed body on
 * purpose, a filled-in path) takes the loose signature and names its type, or gets a record.
 */
export async function api<P extends keyof paths, M extends MethodOf<P>>(
  key: string | null,
  method: M,
  path: P,
  body?: RequestBody<P, M>,
  init?: RequestInit,
): Promise<ApiResponse<SuccessBody<P, M>>>;
export async function api<T = Record<string, unknown>>(
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
  init?: RequestInit,
): Promise<ApiResponse<T>>;
export async function api(
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
  init: RequestInit = {},
): Promise<ApiResponse<unknown>> {
  const headers: Record<string, string> = { ...init.headers };
  if (key) headers.authorization ??= `ApiKey ${key}`;
  let payload: string | undefined = init.rawBody;
  if (body !== undefined) {
    payload = JSON.stringify(body);
    headers["content-type"] ??= "application/json";
  }
  const request = { method, headers, body: payload };
  const res = await (init.via ? init.via.fetch(path, request) : SELF.fetch(`http://clarion.test${path}`, request));
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

/** Calls the Worker as `SELF` does and returns once the request's `waitUntil` work is done as well. */
export async function fetchSettled(path: string, init?: globalThis.RequestInit): Promise<Response> {
  const ctx = createExecutionContext();
  const res = await worker.fetch(new Request(`http://clarion.test${path}`, init), env, ctx);
  await waitOnExecutionContext(ctx);
  return res;
}

export type ProblemBody = Problem;

/** Asserts an RFC 9457 problem response with the given status and code; returns its body. */
export function expectProblem(res: ApiResponse<unknown>, status: number, code: ErrorCode): ProblemBody {
  const body = res.body as ProblemBody;
  expect({ status: res.status, contentType: res.headers.get("content-type") }).toEqual({
    status,
    contentType: expect.stringMatching(/^application\/problem\+json/),
  });
  expect(body).toEqual(
    expect.objectContaining({
      type: expect.any(String),
      title: expect.any(String),
      status,
      detail: expect.any(String),
      code,
    }),
  );
  expect(body.type.length).toBeGreaterThan(0);
  expect(body.title.length).toBeGreaterThan(0);
  expect(body.detail.length).toBeGreaterThan(0);
  return body;
}

/** The paths of a problem's field errors. */
export const errorPaths = (body: unknown) => ((body as ProblemBody).errors ?? []).map((e) => e.path);
