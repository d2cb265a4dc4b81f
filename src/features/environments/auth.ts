import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { sha256Hex } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { limitFailedAuth, limitRequest } from "../../lib/middleware/rate-limit";
import { ADMIN_KEY_PREFIX, ownerOfKey } from "./api-keys";

const SCHEME = /^(?:ApiKey|Bearer)\s+(\S+)\s*$/i;

const credentialOf = (header: string | undefined) => SCHEME.exec(header ?? "")?.[1];

/** Lets a write finish after the answer; `app.request()` in tests has no execution context and just lets it run. */
function inBackground(c: Context<AppEnv>, work: Promise<unknown>) {
  const settled = work.catch(() => undefined);
  try {
    c.executionCtx.waitUntil(settled);
  } catch {
    // No ExecutionContext: the promise still runs to its end.
  }
}

/** A refused credential counts against the caller's failed-authentication limit, which may answer 429 instead. */
async function refuse(c: Context<AppEnv>, error: ApiError): Promise<never> {
  const limited = await limitFailedAuth(c);
  throw limited ?? error;
}

/** Every authenticated request is bound to the one environment its key belongs to, and counted against its limits. */
export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  const key = credentialOf(c.req.header("authorization"));
  if (!key) return refuse(c, new ApiError("unauthorized", "Send your API key in the header `Authorization: ApiKey <key>`."));
  if (key.startsWith(ADMIN_KEY_PREFIX)) {
    throw new ApiError("forbidden", "The admin credential only reaches /v1/admin/; use an environment's API key here.");
  }
  const owner = await ownerOfKey(c.env.DB, key);
  if (!owner) return refuse(c, new ApiError("unauthorized", "The API key is not valid."));
  if (owner.touch) inBackground(c, owner.touch);
  const headers = await limitRequest(c, owner);
  c.set("environmentId", owner.environmentId);
  await next();
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
});

/** Compares two equal-length hex digests without an early exit. */
function sameDigest(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

/**
 * The admin API answers only to the admin credential, whose SHA-256 is the `ADMIN_KEY_HASH`
 * secret (several hashes, comma-separated, while an old credential is phased out). Environment
 * keys are refused with 403 so a caller learns they used the wrong kind of key.
 */
export const adminAuth = createMiddleware<AppEnv>(async (c, next) => {
  const key = credentialOf(c.req.header("authorization"));
  if (!key)
    return refuse(c, new ApiError("unauthorized", "Send the admin credential in the header `Authorization: ApiKey clarion_admin_...`."));
  if (!key.startsWith(ADMIN_KEY_PREFIX)) {
    throw new ApiError("forbidden", "Environment API keys cannot use the admin API; send the admin credential (clarion_admin_...).");
  }
  const hashes = (c.env.ADMIN_KEY_HASH ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const hash = await sha256Hex(key);
  if (!hashes.some((h) => sameDigest(h, hash))) return refuse(c, new ApiError("unauthorized", "The admin credential is not valid."));
  await next();
});
