// The dashboard's session: the credential it signed in with, sealed into an HttpOnly cookie.
//
// Why a CSRF attack cannot work, by construction rather than by token:
// - The cookie is `__Host-` (this origin only, Path=/, Secure, no Domain), HttpOnly (no script
//   reads it, injected or not) and SameSite=Strict (no other site's page makes a browser send it).
// - A request authenticated by the cookie must also carry `X-Clarion-Dashboard: 1`, or the cookie
//   is ignored. An HTML form cannot set a header; a cross-origin fetch with a custom header needs
//   a CORS preflight first, and the API's CORS answer (app.ts) never allows credentials, so the
//   browser sends no cookie cross-origin whatever origin asks, even one in DASHBOARD_ORIGINS.
// - Signing in takes a JSON body (a form cannot send one) and the same header, so another site
//   cannot sign a browser in as someone else either.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import { serialize } from "hono/utils/cookie";
import type { AppEnv } from "../../env";
import { CiphertextError, decryptJson, encryptJson } from "../../lib/secrets";

/** Sent as `__Host-clarion_session`. */
export const SESSION_COOKIE = "clarion_session";
export const DASHBOARD_HEADER = "X-Clarion-Dashboard";
/** A session ends after this long even if the browser stays open. */
export const SESSION_HOURS = 12;

const AAD = "dashboard-session";

interface Sealed {
  credential: string;
  expiresAt: number;
}

/** What the cookie holds: the credential and its end, AES-GCM under ENCRYPTION_KEY; unreadable and unforgeable without it. */
export async function openSession(c: Context<AppEnv>, credential: string, now = Date.now()): Promise<Date> {
  const expiresAt = now + SESSION_HOURS * 3600_000;
  const value = await encryptJson(c.env.ENCRYPTION_KEY, { credential, expiresAt } satisfies Sealed, AAD);
  setCookie(c, SESSION_COOKIE, value, {
    prefix: "host",
    httpOnly: true,
    sameSite: "Strict",
    maxAge: SESSION_HOURS * 3600,
  });
  return new Date(expiresAt);
}

export function closeSession(c: Context<AppEnv>): void {
  deleteCookie(c, SESSION_COOKIE, { prefix: "host", httpOnly: true, sameSite: "Strict" });
}

/** The `Set-Cookie` that clears the session, for an answer built apart from the context (a problem). */
export const clearedSessionCookie = () =>
  serialize(`__Host-${SESSION_COOKIE}`, "", { path: "/", secure: true, httpOnly: true, sameSite: "Strict", maxAge: 0 });

export const hasSessionCookie = (c: Context<AppEnv>) => getCookie(c, SESSION_COOKIE, "host") !== undefined;

/** Whether the request carries the header only the dashboard's own script sends. */
export const fromDashboard = (c: Context<AppEnv>) => c.req.header(DASHBOARD_HEADER) === "1";

/** The session's credential and end, or null when there is none, it ended, or it does not open under this ENCRYPTION_KEY. */
export async function sessionOf(c: Context<AppEnv>, now = Date.now()): Promise<{ credential: string; expiresAt: Date } | null> {
  const value = getCookie(c, SESSION_COOKIE, "host");
  if (!value) return null;
  try {
    const sealed = await decryptJson<Sealed>(c.env.ENCRYPTION_KEY, value, AAD);
    if (typeof sealed.credential !== "string" || typeof sealed.expiresAt !== "number" || sealed.expiresAt <= now) return null;
    return { credential: sealed.credential, expiresAt: new Date(sealed.expiresAt) };
  } catch (error) {
    if (error instanceof CiphertextError || error instanceof SyntaxError) return null;
    throw error;
  }
}
