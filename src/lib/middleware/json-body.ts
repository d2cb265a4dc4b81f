import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { ApiError } from "../errors";

const MiB = 1024 * 1024;
export const REQUEST_BODY_LIMIT = 1 * MiB;
export const BULK_BODY_LIMIT = 8 * MiB;

const JSON_TYPE = /^application\/([a-z0-9.+-]*\+)?json\s*(;|$)/i;
const BULK_PATH = /^\/(v1\/trigger|sub)\/bulk\/?$/;
/** Status webhooks are verified over their raw bytes, so their bodies are left unread here. */
const RAW_BODY_PATH = /^\/v1\/webhooks\//;

const tooLarge = (limit: number) =>
  new ApiError("payload_too_large", `The request body is larger than ${limit / MiB} MiB.`);

async function readLimited(body: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

/**
 * Reads every JSON request body once, within its size limit, so that malformed JSON,
 * a wrong content type and oversized bodies become problems before any handler runs.
 * The parsed value is left in Hono's body cache, where the route validators read it.
 */
export const jsonBody = createMiddleware<AppEnv>(async (c, next) => {
  const body = c.req.raw.body;
  if (body === null || c.req.method === "GET" || c.req.method === "HEAD" || RAW_BODY_PATH.test(c.req.path)) return next();
  const limit = BULK_PATH.test(c.req.path) ? BULK_BODY_LIMIT : REQUEST_BODY_LIMIT;
  const declared = Number(c.req.header("content-length") ?? "NaN");
  if (declared === 0) return next();
  if (!JSON_TYPE.test(c.req.header("content-type") ?? "")) {
    throw new ApiError("unsupported_media_type", "Send the request body as JSON with `Content-Type: application/json`.");
  }
  if (declared > limit) throw tooLarge(limit);
  const text = await readLimited(body, limit);
  let parsed: unknown;
  if (text.trim() === "") {
    c.req.bodyCache.json = Promise.resolve(undefined);
    return next();
  }
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    // V8's message quotes part of the body, which may be a secret: only the position is repeated.
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new ApiError("malformed_json", `The request body is not valid JSON${position ? ` (at character ${position})` : ""}.`);
  }
  c.req.bodyCache.json = Promise.resolve(parsed);
  await next();
});
