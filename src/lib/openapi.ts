import { createRoute, OpenAPIHono, z, type RouteConfig } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { Problem, STATUS_BY_CODE, validationError, type ErrorCode } from "./errors";

/** Every feature's router: validation failures become 422 problems with field paths. */
export const createRouter = () =>
  new OpenAPIHono<AppEnv>({
    strict: false,
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error.issues);
    },
  });

export const security = [{ ApiKey: [] }];

export const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

/** What any route that reads a JSON body may answer before its handler runs (see `jsonBody`). */
export const JSON_BODY_CODES = ["malformed_json", "unsupported_media_type", "payload_too_large"] as const satisfies readonly ErrorCode[];

/**
 * The codes a route can answer with: what its configuration implies (a key, a validated request,
 * a JSON body) and what its handler throws, named in `errors`.
 */
export function errorCodesOf(route: RouteConfig, errors: readonly ErrorCode[] = []): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  // A keyed route refuses a missing or unknown credential (401) and the other kind of credential (403).
  if (route.security?.length) {
    codes.add("unauthorized");
    codes.add("forbidden");
    codes.add("rate_limited");
  }
  const request = route.request;
  if (request?.body) for (const code of JSON_BODY_CODES) codes.add(code);
  if (request?.body || request?.query || request?.params || request?.headers) codes.add("validation_failed");
  for (const code of errors) codes.add(code);
  return [...codes].sort((a, b) => STATUS_BY_CODE[a] - STATUS_BY_CODE[b]);
}

/** One documented problem response per status, its `code` narrowed to the codes given. */
export function problemResponses(codes: readonly ErrorCode[]) {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(STATUS_BY_CODE[code], [...(byStatus.get(STATUS_BY_CODE[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => [
      status,
      {
        description: `Problem (RFC 9457) with \`code\` ${group.map((code) => `\`${code}\``).join(" or ")}`,
        content: {
          "application/problem+json": {
            schema: Problem.extend({ status: z.literal(status), code: z.enum(group as [ErrorCode, ...ErrorCode[]]) }),
          },
        },
      },
    ]),
  );
}

/**
 * `createRoute` with the route's problem responses derived from one list: the codes implied by its
 * configuration plus those its handler throws (`errors`). The full list is also the operation's
 * `x-error-codes`.
 */
export function apiRoute<const R extends RouteConfig & { errors?: readonly ErrorCode[] }>(config: R): Omit<R, "errors"> {
  const { errors, ...route } = config;
  const codes = errorCodesOf(route, errors);
  return createRoute({ ...route, responses: { ...route.responses, ...problemResponses(codes) }, "x-error-codes": codes } as Omit<
    R,
    "errors"
  >);
}
