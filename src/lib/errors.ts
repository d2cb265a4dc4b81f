import type { ContentfulStatusCode } from "hono/utils/http-status";

/** Stable machine codes and the HTTP status each one answers with. */
const STATUS_BY_CODE = {
  validation_failed: 422,
  malformed_json: 400,
  unsupported_media_type: 415,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  workflow_not_found: 404,
  workflow_inactive: 422,
  workflow_exists: 409,
  subscriber_not_found: 404,
  variable_not_found: 404,
  variable_exists: 409,
  topic_not_found: 404,
  topic_exists: 409,
  no_valid_recipients: 422,
  transaction_not_found: 404,
  transaction_conflict: 409,
  payload_too_large: 413,
  rate_limited: 429,
  invalid_tracking_link: 400,
  invalid_signature: 401,
  integration_not_found: 404,
  message_not_found: 404,
  internal_error: 500,
} as const satisfies Record<string, ContentfulStatusCode>;

export type ErrorCode = keyof typeof STATUS_BY_CODE;

const TITLE_BY_CODE: Record<ErrorCode, string> = {
  validation_failed: "Validation failed",
  malformed_json: "Malformed JSON",
  unsupported_media_type: "Unsupported media type",
  unauthorized: "Unauthorized",
  forbidden: "Forbidden",
  not_found: "Not found",
  method_not_allowed: "Method not allowed",
  workflow_not_found: "Workflow not found",
  workflow_inactive: "Workflow inactive",
  workflow_exists: "Workflow already exists",
  subscriber_not_found: "Subscriber not found",
  variable_not_found: "Variable not found",
  variable_exists: "Variable already exists",
  topic_not_found: "Topic not found",
  topic_exists: "Topic already exists",
  no_valid_recipients: "No valid recipients",
  transaction_not_found: "Transaction not found",
  transaction_conflict: "Transaction conflict",
  payload_too_large: "Payload too large",
  rate_limited: "Rate limited",
  invalid_tracking_link: "Invalid tracking link",
  invalid_signature: "Invalid signature",
  integration_not_found: "Integration not found",
  message_not_found: "Message not found",
  internal_error: "Internal error",
};

export interface FieldError {
  path: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  requestId?: string;
  errors?: FieldError[];
}

export class ApiError extends Error {
  readonly status: ContentfulStatusCode;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly errors?: FieldError[],
  ) {
    super(detail);
    this.status = STATUS_BY_CODE[code];
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
}

export const problemResponse = (error: ApiError, requestId?: string): Response =>
  new Response(JSON.stringify(error.toProblem(requestId)), {
    status: error.status,
    headers: { "content-type": "application/problem+json" },
  });

/** Turns zod-style issues into the `errors` list of a problem. */
export const fieldErrors = (issues: readonly { path: readonly PropertyKey[]; message: string }[]): FieldError[] =>
  issues.map((issue) => ({ path: issue.path.map(String).join(".") || "(root)", message: issue.message }));

export const validationError = (
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  detail = "The request does not match the expected schema.",
) => new ApiError("validation_failed", detail, fieldErrors(issues));
