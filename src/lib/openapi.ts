import { createRoute, OpenAPIHono, z, type RouteConfig } from "@hono/zod-openapi";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { MemoRouter } from "./memo-router";
import { Problem, STATUS_BY_CODE, validationError, type ErrorCode } from "./errors";
import { replaySchema, type SecretPaths } from "./secret-fields";

/** Every feature's router: validation failures become 422 problems with field paths. */
export const createRouter = <E extends AppEnv = AppEnv>() =>
  new OpenAPIHono<E>({
    strict: false,
    router: new MemoRouter(),
    defaultHook: (result) => {
      if (!result.success) throw validationError(result.error.issues);
    },
  });

export const security = [{ ApiKey: [] }];

export const json = <T extends z.ZodType>(schema: T) => ({ "application/json": { schema } });

/** What any route that reads a JSON body may answer before its handler runs (see `jsonBody`). */
export const JSON_BODY_CODES = ["malformed_json", "unsupported_media_type", "payload_too_large"] as const satisfies readonly ErrorCode[];

/** What every keyed POST may answer because of its `Idempotency-Key` header (see `middleware/idempotency.ts`). */
export const IDEMPOTENCY_CODES = [
  "invalid_idempotency_key",
  "idempotency_key_mismatch",
  "idempotency_key_in_flight",
] as const satisfies readonly ErrorCode[];

/** Keyed POSTs take an `Idempotency-Key`; public POSTs (provider webhooks) do not. */
const takesIdempotencyKey = (route: RouteConfig) => route.method === "post" && Boolean(route.security?.length);

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
  // The admin credential acting in an environment names it (`Clarion-Environment`), which may not exist.
  if (route.security?.some((scheme) => "ApiKey" in scheme)) codes.add("environment_not_found");
  const request = route.request;
  if (request?.body) for (const code of JSON_BODY_CODES) codes.add(code);
  if (request?.body || request?.query || request?.params || request?.headers) codes.add("validation_failed");
  if (takesIdempotencyKey(route)) for (const code of IDEMPOTENCY_CODES) codes.add(code);
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
 * `x-error-codes`. `secrets` names the answer's fields that hold a secret: an idempotent replay
 * leaves them out (lib/secret-fields.ts), and the documented answer says so.
 */
export function apiRoute<const R extends RouteConfig & { errors?: readonly ErrorCode[]; secrets?: SecretPaths }>(
  config: R,
): Omit<R, "errors" | "secrets"> {
  const { errors, secrets, ...route } = config;
  const codes = errorCodesOf(route, errors);
  const idempotent = takesIdempotencyKey(route) ? idempotencyDocs(route) : { responses: {} };
  const responses = { ...route.responses, ...idempotent.responses };
  return createRoute({
    ...route,
    ...idempotent,
    ...(secrets ? { middleware: [...[route.middleware ?? []].flat(), declareSecrets(secrets)] } : {}),
    responses: { ...(secrets ? withReplays(responses, secrets) : responses), ...problemResponses(codes) },
    "x-error-codes": codes,
  } as Omit<R, "errors" | "secrets">);
}

/** Tells the idempotency store which fields of this route's answer it must not keep. */
const declareSecrets = (secrets: SecretPaths) =>
  createMiddleware<AppEnv>(async function declareSecrets(c, next) {
    c.set("responseSecrets", secrets);
    await next();
  });

/** Each success documented as the first answer or, under `Idempotency-Replay: true`, the replay without its secrets. */
function withReplays(responses: RouteConfig["responses"], secrets: SecretPaths): RouteConfig["responses"] {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      const media = "content" in response ? response.content?.["application/json"] : undefined;
      const schema = media && "schema" in media ? media.schema : undefined;
      if (!status.startsWith("2") || !(schema instanceof z.ZodObject) || !("content" in response)) return [status, response];
      const replay = replaySchema(schema, secrets).openapi({
        description: `Replayed to the same request with the same \`Idempotency-Key\`: ${secrets.map((s) => `\`${s}\``).join(", ")} left out, shown in the first answer only.`,
      });
      return [
        status,
        {
          ...response,
          description: `${response.description}. A replay leaves out the secret (${secrets.join(", ")}): it is shown once and never stored.`,
          content: { "application/json": { schema: z.union([schema, replay]) } },
        },
      ];
    }),
  );
}

/** The components `idempotencyDocs` refers to; registered once on the app (see `app.ts`). */
export const IDEMPOTENCY_COMPONENTS = {
  parameter: {
    name: "Idempotency-Key",
    in: "header" as const,
    required: false,
    description:
      "Makes a retry safe (IETF draft-ietf-httpapi-idempotency-key-header): the first answer is kept 24 hours per environment and replayed to the same request; the same key with another request gets 422 `idempotency_key_mismatch`, and while the first is running, 409 `idempotency_key_in_flight`. 1 to 255 printable ASCII characters.",
    schema: { type: "string" as const, minLength: 1, maxLength: 255, example: "4f1c2a0e-order-1234" },
  },
  header: {
    description: "`true` when this answer is the stored answer to an earlier request with the same `Idempotency-Key`.",
    schema: { type: "string" as const, enum: ["true"] },
  },
};

/** The `Idempotency-Key` parameter and, on each success, the `Idempotency-Replay` header. */
function idempotencyDocs(route: RouteConfig) {
  const replayHeader = { "Idempotency-Replay": { $ref: "#/components/headers/IdempotencyReplay" } };
  const responses = Object.fromEntries(
    Object.entries(route.responses)
      .filter(([status]) => status.startsWith("2"))
      .map(([status, response]) => [
        status,
        "$ref" in response || response.headers instanceof z.ZodType
          ? response
          : { ...response, headers: { ...response.headers, ...replayHeader } },
      ]),
  );
  return { parameters: [...(route.parameters ?? []), { $ref: "#/components/parameters/IdempotencyKey" }], responses };
}
