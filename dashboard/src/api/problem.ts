// Every failure the dashboard shows is an RFC 9457 problem document: Clarion's own, or one the
// client makes for a network failure or an answer that is not a problem document.
import { STATUS_BY_CODE, type ErrorCode } from "../../../src/contract/error-codes";

export type ClientErrorCode = "network_error" | "unexpected_response";

export interface FieldError {
  path: string;
  message: string;
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode | ClientErrorCode | "unknown";
  requestId?: string;
  errors?: FieldError[];
  /** From a 429's `Retry-After`: seconds until the limit lets a request through again. */
  retryAfterSeconds?: number;
}

/** Thrown for every answer that is not 2xx, and for a network failure (status 0). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.title}: ${problem.detail}`);
    this.name = "ApiError";
  }

  /** The message for one field (`steps.0.template.html`), or for any field under it. */
  fieldError(path: string): string | undefined {
    return this.problem.errors?.find((e) => e.path === path || e.path.startsWith(`${path}.`))?.message;
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const isErrorCode = (value: unknown): value is ErrorCode => typeof value === "string" && Object.hasOwn(STATUS_BY_CODE, value);

export function toProblem(status: number, statusText: string, body: unknown): Problem {
  if (isObject(body) && typeof body.title === "string" && typeof body.detail === "string") {
    const errors = Array.isArray(body.errors)
      ? body.errors.filter(isObject).map((e) => ({ path: String(e.path ?? ""), message: String(e.message ?? "") }))
      : undefined;
    return {
      type: typeof body.type === "string" ? body.type : "about:blank",
      title: body.title,
      status,
      detail: body.detail,
      code: isErrorCode(body.code) ? body.code : "unknown",
      requestId: typeof body.requestId === "string" ? body.requestId : undefined,
      errors,
    };
  }
  return {
    type: "about:blank",
    title: statusText || `HTTP ${status}`,
    status,
    detail: "The server answered with an unexpected body.",
    code: "unexpected_response",
  };
}

export const networkProblem = (): Problem => ({
  type: "about:blank",
  title: "Network error",
  status: 0,
  detail: "Clarion could not be reached.",
  code: "network_error",
});
