import { z } from "@hono/zod-openapi";
import { HTTPException } from "hono/http-exception";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { type IssueLike, issueMessage } from "./issue-messages";
import { codeForStatus, ERROR_CODES, STATUS_BY_CODE, TITLE_BY_CODE, type ErrorCode } from "../contract/error-codes";

export { ERROR_CODES, STATUS_BY_CODE, type ErrorCode } from "../contract/error-codes";

export const FieldError = z
  .object({
    path: z
      .string()
      .openapi({ description: "Dotted path of the offending field; `(root)` for the body itself.", example: "payload.orderId" }),
    message: z.string(),
  })
  .openapi("FieldError");
export type FieldError = z.infer<typeof FieldError>;

/** The one shape every error of the API takes: an RFC 9457 problem document. */
export const Problem = z
  .object({
    type: z.string().openapi({ example: "https://clarion.dev/errors/validation-failed" }),
    title: z.string().openapi({ example: "Validation failed" }),
    status: z.number().int().openapi({ example: 422 }),
    detail: z.string().openapi({ description: "For people; branch on `code`." }),
    code: z.enum(ERROR_CODES).openapi({ description: "Stable machine code." }),
    requestId: z.string().optional().openapi({ description: "Also sent as the `x-request-id` header." }),
    errors: z.array(FieldError).optional(),
  })
  .openapi("Problem", { description: "An RFC 9457 problem document, sent as `application/problem+json`." });
export type Problem = z.infer<typeof Problem>;

const PROBLEM_TYPE = "application/problem+json";

/**
 * Every error the API answers with. An `HTTPException`, so Hono and its middleware treat it as
 * one, and each 4xx keeps its own status.
 */
export class ApiError extends HTTPException {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: FieldError[],
    options: { status?: ContentfulStatusCode; cause?: unknown; headers?: Record<string, string> } = {},
  ) {
    super(options.status ?? STATUS_BY_CODE[code], { message: detail, cause: options.cause });
    this.headers = options.headers ?? {};
  }

  /** Sent with the problem: `Retry-After` and the rate limit headers of a 429. */
  readonly headers: Record<string, string>;

  /** The problem an `HTTPException` thrown by Hono or a middleware stands for. 5xx never echo their message. */
  static from(error: HTTPException): ApiError {
    if (error instanceof ApiError) return error;
    if (error.status >= 500) return internalError();
    const status = error.status as ContentfulStatusCode;
    return new ApiError(codeForStatus(status), error.message || "The request could not be processed.", undefined, { status, cause: error });
  }

  toProblem(requestId?: string): Problem {
    return {
      type: `https://clarion.dev/errors/${this.code.replaceAll("_", "-")}`,
      title: TITLE_BY_CODE[this.code],
      status: this.status,
      detail: this.detail,
      code: this.code,
      ...(requestId ? { requestId } : {}),
      ...(this.errors?.length ? { errors: this.errors } : {}),
    };
  }

  override getResponse(): Response {
    return problemResponse(this);
  }
}

export const internalError = () =>
  new ApiError("internal_error", "Something went wrong on our side; the request id identifies it in the logs.");

/**
 * The problem any thrown value answers as: an `ApiError` as it is, another 4xx `HTTPException`
 * translated; anything else is logged with the request id and answered as a 500 that echoes nothing.
 */
export function apiErrorOf(error: Error, requestId: string | undefined): ApiError {
  if (error instanceof HTTPException && error.status < 500) return ApiError.from(error);
  console.error(JSON.stringify({ level: "error", requestId, message: error.message, stack: error.stack }));
  return internalError();
}

export const problemResponse = (error: ApiError, requestId?: string, headers?: HeadersInit): Response => {
  const response = new Response(JSON.stringify(error.toProblem(requestId)), { status: error.status, headers });
  for (const [name, value] of Object.entries(error.headers)) response.headers.set(name, value);
  response.headers.set("content-type", PROBLEM_TYPE);
  return response;
};

/** Turns zod-style issues into the `errors` list of a problem. */
export const fieldErrors = (issues: readonly IssueLike[]): FieldError[] =>
  issues.map((issue) => ({ path: issue.path.map(String).join(".") || "(root)", message: issueMessage(issue) }));

/**
 * A 422 for these issues: `validation_failed`, unless an issue names a more specific code in its
 * `params.problem` (a workflow too deep is `workflow_too_deep`); then that code, with every issue listed.
 */
export function validationError(issues: readonly IssueLike[], detail = "The request does not match the expected schema."): ApiError {
  const specific = issues.map(problemOf).find((code) => code !== undefined);
  return new ApiError(
    specific ?? "validation_failed",
    specific ? issues.find((i) => problemOf(i) === specific)!.message : detail,
    fieldErrors(issues),
  );
}

const problemOf = (issue: IssueLike): ErrorCode | undefined => {
  const problem = (issue as { params?: { problem?: unknown } }).params?.problem;
  return typeof problem === "string" && Object.hasOwn(STATUS_BY_CODE, problem) && STATUS_BY_CODE[problem as ErrorCode] === 422
    ? (problem as ErrorCode)
    : undefined;
};

/** A lookup that found nothing in the caller's environment: `notFound("topic_not_found", 'topic with key "news"')`. */
export const notFound = (code: ErrorCode, what: string) => new ApiError(code, `No ${what} in this environment.`);

/** How both bulk endpoints report an item they could not take: its place in the request, and why. */
export const BulkItemError = z
  .object({
    index: z.number().int().openapi({ description: "The item's position in the request, from 0." }),
    error: Problem,
  })
  .openapi("BulkItemError");
export type BulkItemError = z.infer<typeof BulkItemError>;
