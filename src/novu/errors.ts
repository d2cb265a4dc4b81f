import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { apiErrorOf, type Problem } from "../lib/errors";

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
 * The Novu app's error handler: every error on `/novu`, the key check's and the validators'
 * included, in Novu's error body. Novu's SDKs pick their typed error by status and
 * `application/json`, and read `statusCode` and `message`.
 */
export function novuErrorResponse(error: Error, c: Context<AppEnv>): Response {
  const requestId = c.get("requestId");
  const problem = apiErrorOf(error, requestId);
  const response = Response.json(novuErrorBody(problem.toProblem(requestId), c.req.path), { status: problem.status });
  // `Retry-After` and the rate limit headers of a 429 go with it, as they do with a problem.
  for (const [name, value] of Object.entries(problem.headers)) response.headers.set(name, value);
  response.headers.set("x-request-id", requestId);
  return response;
}
