import { bodyLimit } from "hono/body-limit";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { ApiError, validationError } from "../errors";
import { depthIssue, MAX_BODY_DEPTH } from "../json-limits";

const MiB = 1024 * 1024;
export const REQUEST_BODY_LIMIT = 1 * MiB;
export const BULK_BODY_LIMIT = 8 * MiB;

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;

const tooLarge = (limit: number) => new ApiError("payload_too_large", `The request body is larger than ${limit / MiB} MiB.`);

/**
 * Reads a JSON request body once, within `maxSize` (Hono's `bodyLimit`), so that malformed JSON,
 * a wrong content type and oversized bodies become problems before any handler runs. The parsed
 * value is left in Hono's body cache, where the route validators read it; a later `jsonBody` on
 * the same request finds it there and steps aside, so the first limit that applies to a path wins.
 */
export const jsonBody = ({ maxSize = REQUEST_BODY_LIMIT }: { maxSize?: number } = {}) => {
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw tooLarge(maxSize);
    },
  });
  return createMiddleware<AppEnv>(async function jsonBody(c, next) {
    if (c.req.bodyCache.json !== undefined) return next();
    if (c.req.raw.body === null || c.req.method === "GET" || c.req.method === "HEAD") return next();
    if (Number(c.req.header("content-length") ?? "NaN") === 0) return next();
    if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) {
      throw new ApiError("unsupported_media_type", "Send the request body as JSON with `Content-Type: application/json`.");
    }
    await limit(c, async () => {
      const body = parse(await c.req.raw.text());
      // Checked before any validator or handler: they all recurse, and too deep a body overflows their stack.
      const issue = depthIssue(body, MAX_BODY_DEPTH, []);
      if (issue) throw validationError([issue], `The request body is nested deeper than ${MAX_BODY_DEPTH} levels.`);
      c.req.bodyCache.json = Promise.resolve(body);
    });
    await next();
  });
};

function parse(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    // V8's message quotes part of the body, which may be a secret: only the position is repeated.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new ApiError("malformed_json", `The request body is not valid JSON${position ? ` (at character ${position})` : ""}.`);
  }
}
