// The dashboard's session: a random session id and the credential it signed in with, sealed into
// an HttpOnly cookie, and a row in D1 (`dashboard_sessions`) that makes the id count. Signing out
// deletes the row, so a copied cookie stops working everywhere at once; revoking or rotating the key
// ends the session too, because every request still checks the credential.
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
import { unscopedDb } from "../../db/unscoped";
import type { AppEnv } from "../../env";
import { bytesToBase64 } from "../../lib/base64";
import { sha256Hex } from "../../lib/crypto";
import { CiphertextError, decryptJson, encryptJson } from "../../lib/secrets";
import { deleteDashboardSession, insertDashboardSession, liveDashboardSession } from "./dashboard-sessions-repository";

/** Sent as `__Host-clarion_session`. */
export const SESSION_COOKIE = "clarion_session";
export const DASHBOARD_HEADER = "X-Clarion-Dashboard";
/** A session ends after this long even if the browser stays open. */
export const SESSION_HOURS = 12;

const AAD = "dashboard-session";

interface Sealed {
  /** The random session id; its SHA-256 is the `dashboard_sessions` row. */
  sid: string;
  credential: string;
  expiresAt: number;
}

/** 256 random bits. */
const newSessionId = () => bytesToBase64(crypto.getRandomValues(new Uint8Array(32)));

/**
 * Opens a session: its row in D1 and the cookie, which holds the session id, the credential and
 * the end, AES-GCM under ENCRYPTION_KEY (unreadable and unforgeable without it).
 */
export async function openSession(c: Context<AppEnv>, credential: string, now = Date.now()): Promise<Date> {
  const expiresAt = now + SESSION_HOURS * 3600_000;
  const sid = newSessionId();
  await insertDashboardSession(unscopedDb(c.env), await sha256Hex(sid), new Date(expiresAt), new Date(now));
  const value = await encryptJson(c.env.ENCRYPTION_KEY, { sid, credential, expiresAt } satisfies Sealed, AAD);
  setCookie(c, SESSION_COOKIE, value, {
    prefix: "host",
    httpOnly: true,
    sameSite: "Strict",
    maxAge: SESSION_HOURS * 3600,
  });
  return new Date(expiresAt);
}

/** Ends the session for every copy of its cookie (the row goes), then clears this browser's cookie. */
export async function closeSession(c: Context<AppEnv>): Promise<void> {
  const sealed = await unsealed(c);
  if (sealed) await deleteDashboardSession(unscopedDb(c.env), await sha256Hex(sealed.sid));
  deleteCookie(c, SESSION_COOKIE, { prefix: "host", httpOnly: true, sameSite: "Strict" });
}

/** The `Set-Cookie` that clears the session, for an answer built apart from the context (a problem). */
export const clearedSessionCookie = () =>
  serialize(`__Host-${SESSION_COOKIE}`, "", { path: "/", secure: true, httpOnly: true, sameSite: "Strict", maxAge: 0 });

export const hasSessionCookie = (c: Context<AppEnv>) => getCookie(c, SESSION_COOKIE, "host") !== undefined;

/** Whether the request carries the header only the dashboard's own script sends. */
export const fromDashboard = (c: Context<AppEnv>) => c.req.header(DASHBOARD_HEADER) === "1";

/** The cookie's contents, or null when there is none or it does not open under this ENCRYPTION_KEY (or predates session ids). */
async function unsealed(c: Context<AppEnv>): Promise<Sealed | null> {
  const value = getCookie(c, SESSION_COOKIE, "host");
  if (!value) return null;
  try {
    const sealed = await decryptJson<Sealed>(c.env.ENCRYPTION_KEY, value, AAD);
    const valid = typeof sealed.sid === "string" && typeof sealed.credential === "string" && typeof sealed.expiresAt === "number";
    return valid ? sealed : null;
  } catch (error) {
    if (error instanceof CiphertextError || error instanceof SyntaxError) return null;
    throw error;
  }
}

type Session = { credential: string; expiresAt: Date } | null;

/** One D1 read per request, however many times a request asks (auth, then `GET /v1/dashboard/session`). */
const looked = new WeakMap<Request, Promise<Session>>();

/** The session's credential and end, or null when there is none, it ended (here or by signing out anywhere), or it does not open. */
export function sessionOf(c: Context<AppEnv>, now = Date.now()): Promise<Session> {
  let session = looked.get(c.req.raw);
  if (!session) {
    session = lookUp(c, now);
    looked.set(c.req.raw, session);
  }
  return session;
}

async function lookUp(c: Context<AppEnv>, now: number): Promise<Session> {
  const sealed = await unsealed(c);
  if (!sealed || sealed.expiresAt <= now) return null;
  const [row] = await liveDashboardSession(unscopedDb(c.env), await sha256Hex(sealed.sid), new Date(now));
  return row ? { credential: sealed.credential, expiresAt: new Date(sealed.expiresAt) } : null;
}
