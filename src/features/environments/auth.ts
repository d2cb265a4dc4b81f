import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { Actor, AppEnv } from "../../env";
import { sha256Hex, timingSafeEqual } from "../../lib/crypto";
import { ApiError } from "../../lib/errors";
import { type Caller, limitFailedAuth, limitRequest } from "../../lib/middleware/rate-limit";
import { unscopedDb } from "../../db/unscoped";
import { ADMIN_KEY_PREFIX, type KeyOwner, ownerOfKey } from "./api-keys";
import { clearedSessionCookie, DASHBOARD_HEADER, fromDashboard, hasSessionCookie, sessionOf } from "./dashboard-session";
import { dataOf } from "../data";
import { environmentsRepository } from "./repository";

const ADMIN_ACTOR: Actor = { type: "admin", id: null, name: "admin" };

const SCHEME = /^(?:ApiKey|Bearer)\s+(\S+)\s*$/i;

/** The key of an `Authorization: ApiKey <key>` or `Bearer <key>` header. */
export const credentialOf = (header: string | undefined) => SCHEME.exec(header ?? "")?.[1];

/** Lets a write finish after the answer; `app.request()` in tests has no execution context and just lets it run. */
export function inBackground(c: Context<AppEnv>, work: Promise<unknown>) {
  const settled = work.catch(() => undefined);
  try {
    c.executionCtx.waitUntil(settled);
  } catch {
    // No ExecutionContext: the promise still runs to its end.
  }
}

/** `inBackground` for this request, as a function a service takes (the accept path's `background`). */
export const backgroundOf =
  (c: Context<AppEnv>) =>
  (work: Promise<unknown>): void =>
    inBackground(c, work);

/** A refused credential counts against the caller's failed-authentication limit, which may answer 429 instead. */
export async function refuse(c: Context<AppEnv>, error: ApiError): Promise<never> {
  const limited = await limitFailedAuth(c);
  throw limited ?? error;
}

/** Names the environment an admin credential acts in (an environment key may name only its own). */
export const ENVIRONMENT_HEADER = "Clarion-Environment";

/**
 * The credential of a request: the `Authorization` header, else the dashboard's session cookie,
 * which counts only with the dashboard's header (see dashboard-session.ts for why).
 */
export async function credentialOfRequest(c: Context<AppEnv>): Promise<string | undefined> {
  const header = credentialOf(c.req.header("authorization"));
  if (header || !hasSessionCookie(c)) return header;
  if (!fromDashboard(c)) {
    return refuse(
      c,
      new ApiError(
        "unauthorized",
        `A dashboard session counts only with the header \`${DASHBOARD_HEADER}: 1\`; an API client sends \`Authorization: ApiKey <key>\`.`,
      ),
    );
  }
  const session = await sessionOf(c);
  if (!session) {
    const ended = new ApiError("unauthorized", "The dashboard session has ended: sign in again.", undefined, {
      headers: { "set-cookie": clearedSessionCookie() },
    });
    return refuse(c, ended);
  }
  return session.credential;
}

/** The admin credential's SHA-256 when `key` is it (one of `ADMIN_KEY_HASH`'s), else null. */
async function adminCredentialHash(env: { ADMIN_KEY_HASH?: string }, key: string): Promise<string | null> {
  if (!key.startsWith(ADMIN_KEY_PREFIX)) return null;
  const hashes = (env.ADMIN_KEY_HASH ?? "")
    .split(",")
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  const hash = await sha256Hex(key);
  return hashes.some((h) => timingSafeEqual(h, hash)) ? hash : null;
}

/** Whether `key` is the admin credential. */
export const isAdminCredential = async (env: { ADMIN_KEY_HASH?: string }, key: string): Promise<boolean> =>
  (await adminCredentialHash(env, key)) !== null;

/**
 * The environment the admin credential acts in: the one `Clarion-Environment` names. Counted
 * against that environment's limit and a key limit of its own, like a key of it.
 */
async function adminActingIn(c: Context<AppEnv>, keyHash: string): Promise<Caller> {
  const slug = c.req.header(ENVIRONMENT_HEADER);
  if (!slug) {
    throw new ApiError(
      "forbidden",
      `The admin credential acts in an environment only when the request names it: send \`${ENVIRONMENT_HEADER}: <slug>\`, or use an environment's API key.`,
    );
  }
  const environment = await environmentsRepository(unscopedDb(c.env)).find(slug);
  if (!environment) throw new ApiError("environment_not_found", `No environment with slug "${slug}".`);
  return { environmentId: environment.id, slug: environment.slug, keyHash };
}

/** Who a credential is: the admin credential, in the environment the request names, or an environment key. */
export interface Identity {
  caller: Caller;
  /** The environment key, with its kind and scopes; null for the admin credential. */
  key: KeyOwner | null;
}

/** The credential's identity, or the refusal (401, 403, 404 `environment_not_found`) the request gets. */
export async function identify(c: Context<AppEnv>, key: string): Promise<Identity> {
  if (key.startsWith(ADMIN_KEY_PREFIX)) {
    const hash = await adminCredentialHash(c.env, key);
    if (!hash) return refuse(c, new ApiError("unauthorized", "The admin credential is not valid."));
    return { caller: await adminActingIn(c, hash), key: null };
  }
  const owner = await ownerOfKey(c.env.DB, key);
  if (!owner) return refuse(c, new ApiError("unauthorized", "The API key is not valid."));
  if (owner.touch) inBackground(c, owner.touch);
  const named = c.req.header(ENVIRONMENT_HEADER);
  if (named !== undefined && named !== owner.slug) {
    throw new ApiError("forbidden", `This API key belongs to the environment "${owner.slug}"; it cannot act in "${named}".`);
  }
  return { caller: owner, key: owner };
}

/**
 * Every authenticated request is bound to one environment and counted against its limits: the
 * environment of its key, or, for the admin credential, the one named by `Clarion-Environment`.
 * An MCP key is refused: it is made for `/mcp` and the scopes it was given, not for the whole API.
 */
export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  const key = await credentialOfRequest(c);
  if (!key) return refuse(c, new ApiError("unauthorized", "Send your API key in the header `Authorization: ApiKey <key>`."));
  const { caller, key: owner } = await identify(c, key);
  if (owner?.kind === "mcp") {
    throw new ApiError("forbidden", "This is an MCP key: it works only at /mcp, with an MCP client. Use an API key for the API.");
  }
  const viaSession = !credentialOf(c.req.header("authorization"));
  const actor: Actor = owner ? { type: viaSession ? "dashboard" : "key", id: owner.keyId, name: owner.keyName } : ADMIN_ACTOR;
  const headers = await limitRequest(c, caller);
  c.set("data", dataOf(c.env, caller.environmentId));
  c.set("actor", actor);
  await next();
  // A 429 of a route's own limit (a webhook endpoint's tests) describes that limit: it keeps its headers.
  for (const [name, value] of Object.entries(headers)) if (!c.res.headers.has(name)) c.res.headers.set(name, value);
});

/**
 * The admin API answers only to the admin credential, whose SHA-256 is the `ADMIN_KEY_HASH`
 * secret (several hashes, comma-separated, while an old credential is phased out). Environment
 * keys are refused with 403 so a caller learns they used the wrong kind of key.
 */
export const adminAuth = createMiddleware<AppEnv>(async (c, next) => {
  const key = await credentialOfRequest(c);
  if (!key)
    return refuse(c, new ApiError("unauthorized", "Send the admin credential in the header `Authorization: ApiKey clarion_admin_...`."));
  if (!key.startsWith(ADMIN_KEY_PREFIX)) {
    throw new ApiError("forbidden", "Environment API keys cannot use the admin API; send the admin credential (clarion_admin_...).");
  }
  if (!(await isAdminCredential(c.env, key))) return refuse(c, new ApiError("unauthorized", "The admin credential is not valid."));
  c.set("actor", ADMIN_ACTOR);
  await next();
});
