// A typed client for the parts of the Clarion API the dashboard uses. Status lists and error codes
// come from the server's dependency-free contract modules; response types are imported from the
// server's zod schemas as types only, so neither zod nor drizzle reaches the bundle.
import { STATUS_BY_CODE, type ErrorCode } from "../../src/contract/error-codes";
import type { MessageStatus } from "../../src/contract/statuses";
import type { Problem as ServerProblem } from "../../src/lib/errors";
import type { Message, MessageEvent, MessageWithEvents } from "../../src/features/messages/schemas";
import type { z } from "@hono/zod-openapi";
import type { Condition, Step } from "../../src/engine/steps";
import type { Workflow } from "../../src/features/workflows/schemas";
import type {
  PreviewConditionLeaf,
  PreviewRequest as ServerPreviewRequest,
  PreviewResponse,
  PreviewStep,
} from "../../src/features/workflows/preview-schemas";

export { MESSAGE_STATUSES, type MessageStatus } from "../../src/contract/statuses";
export type { Message, MessageEvent, MessageWithEvents };

export type Channel = "email" | "sms" | "push" | "chat";
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export type { Condition, Step, Workflow };

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export type { PreviewConditionLeaf, PreviewResponse, PreviewStep };
/** What the client sends: the server fills in what is left out. */
export type PreviewRequest = z.input<typeof ServerPreviewRequest>;

export interface MessageQuery {
  status?: MessageStatus;
  workflow?: string;
  transactionId?: string;
  subscriberId?: string;
  limit?: number;
  cursor?: string;
}

/** Codes the client gives failures that never reached Clarion or did not answer with a problem. */
export type ClientErrorCode = "network_error" | "unexpected_response" | "unknown";

/** An RFC 9457 problem document, as every Clarion error is; `code` may also be one of the client's own. */
export type Problem = Omit<ServerProblem, "code"> & { code: ErrorCode | ClientErrorCode };

/** Thrown for every answer that is not 2xx, and for a network failure (status 0). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(`${problem.title}: ${problem.detail}`);
    this.name = "ApiError";
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const isErrorCode = (value: unknown): value is ErrorCode => typeof value === "string" && Object.hasOwn(STATUS_BY_CODE, value);

function toProblem(status: number, statusText: string, body: unknown): Problem {
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

export interface ClientOptions {
  /** The API key, read on every request so a change takes effect at once. */
  apiKey: () => string;
  baseUrl?: string;
}

export function createClient({ apiKey, baseUrl = "" }: ClientOptions) {
  async function request<T>(method: "GET" | "POST", path: string, init: { body?: unknown; signal?: AbortSignal } = {}): Promise<T> {
    const headers: Record<string, string> = { Authorization: `ApiKey ${apiKey()}`, Accept: "application/json" };
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    let response: Response;
    try {
      response = await fetch(baseUrl + path, {
        method,
        headers,
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: init.signal,
      });
    } catch (error) {
      if (error instanceof DOMException && error.name === "AbortError") throw error;
      throw new ApiError({
        type: "about:blank",
        title: "Network error",
        status: 0,
        detail: "Clarion could not be reached.",
        code: "network_error",
      });
    }
    const text = await response.text();
    let body: unknown = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    if (!response.ok) throw new ApiError(toProblem(response.status, response.statusText, body));
    return body as T;
  }

  const query = (params: Record<string, string | number | undefined>) => {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== "") search.set(k, String(v));
    const s = search.toString();
    return s ? `?${s}` : "";
  };
  const enc = encodeURIComponent;

  return {
    listWorkflows: (params: { limit?: number; cursor?: string } = {}) =>
      request<Page<Workflow>>("GET", `/v1/workflows${query({ ...params })}`),
    getWorkflow: (key: string) => request<Workflow>("GET", `/v1/workflows/${enc(key)}`),
    previewWorkflow: (key: string, body: PreviewRequest, signal?: AbortSignal) =>
      request<PreviewResponse>("POST", `/v1/workflows/${enc(key)}/preview`, { body, signal }),
    listMessages: (params: MessageQuery = {}) => request<Page<Message>>("GET", `/v1/messages${query({ ...params })}`),
    getMessage: (id: string) => request<MessageWithEvents>("GET", `/v1/messages/${enc(id)}`),
  };
}

export type Client = ReturnType<typeof createClient>;
