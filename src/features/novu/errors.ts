import { z } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import type { Problem } from "../../lib/errors";
import { isNovuClient } from "./client";

/**
 * Novu's error body (its `ErrorDto`/`ValidationErrorDto`), with Clarion's `code` and `requestId`
 * kept beside it so a log line still ties up. `errors` is Novu's per-field map.
 */
export const NovuErrorBody = z
  .object({
    statusCode: z.number().int(),
    message: z.string(),
    error: z.string(),
    timestamp: z.iso.datetime(),
    path: z.string(),
    code: z.string(),
    requestId: z.string().optional(),
    errors: z.record(z.string(), z.object({ messages: z.array(z.string()) })).optional(),
  })
  .openapi("NovuError");
export type NovuErrorBody = z.infer<typeof NovuErrorBody>;

export function novuErrorBody(problem: Problem, path: string, now = new Date()): NovuErrorBody {
  const errors = problem.errors?.length
    ? Object.fromEntries(
        [...Map.groupBy(problem.errors, (e) => e.path)].map(([field, list]) => [field, { messages: list.map((e) => e.message) }]),
      )
    : undefined;
  return {
    statusCode: problem.status,
    message: problem.detail,
    error: problem.title,
    timestamp: now.toISOString(),
    path,
    code: problem.code,
    ...(problem.requestId ? { requestId: problem.requestId } : {}),
    ...(errors ? { errors } : {}),
  };
}

/**
 * Rewrites the problem documents answered on Novu's paths into Novu's error body, for Novu's SDKs
 * only: they pick their typed error by status and `application/json`, and read `statusCode` and
 * `message`. Mounted before the key check, so a 401 or a malformed body is rewritten too; other
 * clients keep RFC 9457 problems everywhere.
 */
export const novuErrors = createMiddleware<AppEnv>(async (c, next) => {
  await next();
  if (c.res.status < 400 || !isNovuClient(c)) return;
  if (!c.res.headers.get("content-type")?.startsWith("application/problem+json")) return;
  const problem = (await c.res.clone().json()) as Problem;
  const headers = new Headers(c.res.headers);
  headers.set("content-type", "application/json; charset=UTF-8");
  c.res = undefined;
  c.res = new Response(JSON.stringify(novuErrorBody(problem, c.req.path)), { status: problem.status, headers });
});
