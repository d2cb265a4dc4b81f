import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { validationError } from "./errors";

/** Every feature's router: validation failures become 422 problems with field paths. */
export const createRouter = () =>
  new OpenAPIHono<AppEnv>({
    strict: false,
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error.issues);
    },
  });

export const security = [{ ApiKey: [] }];

export const problemContent = {
  "application/problem+json": {
    schema: {
      type: "object" as const,
      properties: {
        type: { type: "string" as const },
        title: { type: "string" as const },
        status: { type: "integer" as const },
        detail: { type: "string" as const },
        code: { type: "string" as const },
        requestId: { type: "string" as const },
        errors: {
          type: "array" as const,
          items: {
            type: "object" as const,
            properties: { path: { type: "string" as const }, message: { type: "string" as const } },
          },
        },
      },
      required: ["type", "title", "status", "detail", "code"],
    },
  },
};

/** The problem responses a route documents, by status. */
export const problems = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((status) => [status, { description: "Problem (RFC 9457)", content: problemContent }]));
