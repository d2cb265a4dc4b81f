import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { unscopedDb } from "../../db/unscoped";
import type { AppEnv } from "../../env";
import { byteLength, canonicalJson, sha256Hex } from "../crypto";
import { ApiError } from "../errors";
import { claimKey, completeKey, releaseKey } from "../../db/queries/idempotency";
import { environmentKeyScope, type KeyRef, type StoredAnswer } from "../idempotency-keys";
import { type SecretPaths, storableBody } from "../secret-fields";

export const IDEMPOTENCY_KEY_HEADER = "idempotency-key";
export const IDEMPOTENCY_REPLAY_HEADER = "idempotency-replay";
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Larger answers are not kept (D1 rows stop at 2 MB); the key is released and a retry runs again. */
const MAX_STORED_BODY_BYTES = 1024 * 1024;

/** The headers of an answer that say something about the result; the rest belong to the request that made it. */
const STORED_HEADERS = ["content-type", "location", "content-language"];

/**
 * Answers worth replaying: the outcome of this request. 5xx, and the 4xx that speak of a moment
 * (a timeout, a conflict with another write, a rate limit), are not kept, so a retry runs again.
 */
export const isReplayable = (status: number) => status < 500 && ![408, 409, 425, 429].includes(status);

const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;

/**
 * The key as sent: a bare token, or the draft's structured-field string (`"…"`), whose quotes
 * and escapes are removed. Printable ASCII, 1 to 255 characters.
 */
export function parseIdempotencyKey(header: string): string {
  const trimmed = header.trim();
  const quoted = /^"((?:[^"\\]|\\["\\])*)"$/.exec(trimmed);
  const key = quoted ? quoted[1]!.replace(/\\(["\\])/g, "$1") : trimmed;
  if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !PRINTABLE_ASCII.test(key)) {
    throw new ApiError(
      "invalid_idempotency_key",
      `The Idempotency-Key header must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} printable ASCII characters.`,
    );
  }
  return key;
}

/** Method, path with query, and the body as canonical JSON: equal requests hash equally whatever their key order. */
async function fingerprintOf(c: Context<AppEnv>): Promise<string> {
  const url = new URL(c.req.url);
  const body = c.req.bodyCache.json === undefined ? null : ((await c.req.bodyCache.json) as unknown);
  return sha256Hex(canonicalJson([c.req.method, url.pathname + url.search, body ?? null]));
}

function replay(answer: StoredAnswer): Response {
  const headers = new Headers(answer.headers);
  headers.set(IDEMPOTENCY_REPLAY_HEADER, "true");
  return new Response(answer.body === "" ? null : answer.body, { status: answer.status, headers });
}

/** What is kept of an answer; null when it cannot be kept (too large, or secrets in a body that is not JSON). */
async function answerOf(response: Response, secrets: SecretPaths | undefined): Promise<StoredAnswer | null> {
  const text = await response.clone().text();
  const body = secrets && response.ok ? storableBody(text, secrets) : text;
  if (body === null || byteLength(body) > MAX_STORED_BODY_BYTES) return null;
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const value = response.headers.get(name);
    if (value !== null) headers[name] = value;
  }
  return { status: response.status, headers, body };
}

/** Finishing the claim must not turn an answer the handler gave into an error: a failure is logged. */
async function settle(c: Context<AppEnv>, ref: KeyRef) {
  const db = unscopedDb(c.env);
  try {
    const answer = isReplayable(c.res.status) ? await answerOf(c.res, c.get("responseSecrets")) : null;
    await (answer ? completeKey(db, ref, answer) : releaseKey(db, ref));
  } catch (error) {
    console.error(
      JSON.stringify({ level: "error", requestId: c.get("requestId"), message: "Idempotency key not settled.", error: String(error) }),
    );
  }
}

/**
 * IETF draft-ietf-httpapi-idempotency-key-header for POST: the first answer to a key is kept for
 * 24 hours in its scope and replayed (with `Idempotency-Replay: true`) to the same request; the
 * same key with another request gets 422, and while the first is running, 409. Mounted after
 * authentication and `jsonBody`, which give the scope and the parsed body. A request without the
 * header costs nothing more.
 */
export const idempotency = (scopeOf: (c: Context<AppEnv>) => string) =>
  createMiddleware<AppEnv>(async function idempotency(c, next) {
    const header = c.req.header(IDEMPOTENCY_KEY_HEADER);
    if (header === undefined || c.req.method !== "POST") return next();
    const key = parseIdempotencyKey(header);
    const ref: KeyRef = { scope: scopeOf(c), key, fingerprint: await fingerprintOf(c) };
    const claim = await claimKey(unscopedDb(c.env), ref, Date.now());
    switch (claim.kind) {
      case "mismatch":
        throw new ApiError("idempotency_key_mismatch", "This Idempotency-Key was already used for a different request.");
      case "in_flight":
        throw new ApiError(
          "idempotency_key_in_flight",
          "A request with this Idempotency-Key is still being processed; retry once it has answered.",
          undefined,
          { headers: { "retry-after": "1" } },
        );
      case "replay":
        return replay(claim.answer);
      case "claimed":
        break;
    }
    c.set("idempotencyKey", key);
    try {
      await next();
    } catch (error) {
      await releaseKey(unscopedDb(c.env), ref).catch(() => undefined);
      throw error;
    }
    await settle(c, ref);
  });

export const environmentScope = (c: Context<AppEnv>) => environmentKeyScope(c.get("data").environmentId);
export const adminScope = () => "admin";
