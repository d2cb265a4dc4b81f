import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { DashboardSession } from "../../src/features/environments/dashboard-session-routes";
import { eq } from "drizzle-orm";
import { createDb } from "../../src/db/client";
import { dashboardSessions } from "../../src/db/schema";
import { sha256Hex } from "../../src/lib/crypto";
import { decryptJson, encryptJson } from "../../src/lib/secrets";
import { createEnvironment } from "../factories";
import { ADMIN_KEY, api, expectProblem } from "../request";
import { admin } from "./helpers";

const DASHBOARD = { "x-clarion-dashboard": "1" };

/** Signs in as the dashboard does; the session cookie (name=value) and the answer. */
async function signIn(credential: string) {
  const res = await api<DashboardSession>(null, "POST", "/v1/dashboard/session", { credential }, { headers: DASHBOARD });
  const setCookie = res.headers.get("set-cookie") ?? "";
  return { res, setCookie, cookie: setCookie.split(";")[0]! };
}

/** A request as the dashboard's script sends it: the cookie, and the header no form can send. */
const withSession = (cookie: string, extra: Record<string, string> = {}) => ({ headers: { cookie, ...DASHBOARD, ...extra } });

describe("POST /v1/dashboard/session", () => {
  it("sets an HttpOnly, Secure, SameSite=Strict __Host- cookie that does not show the key", async () => {
    const { key, slug } = await createEnvironment();
    const { res, setCookie, cookie } = await signIn(key);
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: "environment", environments: [{ slug }] });
    expect(setCookie).toMatch(/^__Host-clarion_session=/);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; Secure/);
    expect(setCookie).toMatch(/; SameSite=Strict/);
    expect(setCookie).toMatch(/; Path=\//);
    expect(setCookie).not.toMatch(/Domain=/);
    expect(cookie).not.toContain(key);
    expect(cookie).not.toContain(key.slice(-20));
  });

  it("refuses a wrong key with 401 and sets no cookie", async () => {
    const { res, setCookie } = await signIn("ck_nope_notARealKey");
    expectProblem(res, 401, "unauthorized");
    expect(setCookie).toBe("");
  });

  it("refuses a request without the dashboard's header, so no other site can sign a browser in", async () => {
    const { key } = await createEnvironment();
    const res = await api(null, "POST", "/v1/dashboard/session", { credential: key });
    expectProblem(res, 422, "validation_failed");
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("refuses a form's body (not JSON) with 415", async () => {
    const { key } = await createEnvironment();
    const res = await api(null, "POST", "/v1/dashboard/session", undefined, {
      headers: { ...DASHBOARD, "content-type": "application/x-www-form-urlencoded" },
      rawBody: `credential=${key}`,
    });
    expectProblem(res, 415, "unsupported_media_type");
  });

  it("lists every environment for the admin credential", async () => {
    const { slug } = await createEnvironment();
    const { res } = await signIn(ADMIN_KEY);
    expect(res.status).toBe(201);
    expect(res.body.kind).toBe("admin");
    expect(res.body.environments.map((e) => e.slug)).toContain(slug);
  });
});

describe("a session cookie", () => {
  it("acts as its key when the request carries the dashboard's header", async () => {
    const { key } = await createEnvironment();
    const { cookie } = await signIn(key);
    expect((await api(null, "GET", "/v1/workflows", undefined, withSession(cookie))).status).toBe(200);
  });

  it("is ignored without the dashboard's header (a cross-site request cannot send it)", async () => {
    const { key } = await createEnvironment();
    const { cookie } = await signIn(key);
    const problem = expectProblem(await api(null, "GET", "/v1/workflows", undefined, { headers: { cookie } }), 401, "unauthorized");
    expect(problem.detail).toContain("X-Clarion-Dashboard");
  });

  it("is refused when changed", async () => {
    const { key } = await createEnvironment();
    const { cookie } = await signIn(key);
    const tampered = `${cookie.slice(0, -4)}${cookie.endsWith("AAAA") ? "BBBB" : "AAAA"}`;
    const res = await api(null, "GET", "/v1/workflows", undefined, withSession(tampered));
    expect(expectProblem(res, 401, "unauthorized").detail).toMatch(/sign in again/);
    // The browser drops what no longer opens.
    expect(res.headers.get("set-cookie")).toMatch(/^__Host-clarion_session=; Max-Age=0; Path=\/; HttpOnly; Secure; SameSite=Strict/);
  });

  it("is refused once its sealed end has passed, whatever the browser keeps", async () => {
    const { key } = await createEnvironment();
    const sid = "a-session-id-with-a-row";
    const id = await sha256Hex(sid);
    await createDb(env.DB)
      .insert(dashboardSessions)
      .values({ id, expiresAt: new Date(Date.now() + 60_000), createdAt: new Date() });
    const sealed = await encryptJson(env.ENCRYPTION_KEY, { sid, credential: key, expiresAt: Date.now() - 1000 }, "dashboard-session");
    expectProblem(await api(null, "GET", "/v1/workflows", undefined, withSession(`__Host-clarion_session=${sealed}`)), 401, "unauthorized");
    const fresh = await encryptJson(env.ENCRYPTION_KEY, { sid, credential: key, expiresAt: Date.now() + 60_000 }, "dashboard-session");
    expect((await api(null, "GET", "/v1/workflows", undefined, withSession(`__Host-clarion_session=${fresh}`))).status).toBe(200);
  });

  it("is refused once its session has ended on the server, whatever the cookie says", async () => {
    const { key } = await createEnvironment();
    const { cookie } = await signIn(key);
    expect((await api(null, "GET", "/v1/workflows", undefined, withSession(cookie))).status).toBe(200);
    const { sid } = await decryptJson<{ sid: string }>(env.ENCRYPTION_KEY, cookie.split("=")[1]!, "dashboard-session");
    await createDb(env.DB)
      .update(dashboardSessions)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(dashboardSessions.id, await sha256Hex(sid)));
    expectProblem(await api(null, "GET", "/v1/workflows", undefined, withSession(cookie)), 401, "unauthorized");
  });

  it("needs a session the server opened: a sealed credential alone (a cookie from before 0.8) is refused", async () => {
    const { key } = await createEnvironment();
    const sealed = await encryptJson(env.ENCRYPTION_KEY, { credential: key, expiresAt: Date.now() + 60_000 }, "dashboard-session");
    const res = await api(null, "GET", "/v1/workflows", undefined, withSession(`__Host-clarion_session=${sealed}`));
    expect(expectProblem(res, 401, "unauthorized").detail).toMatch(/sign in again/);
  });

  it("stops working when its key is revoked", async () => {
    const slug = `sess-${Date.now().toString(36)}`;
    await admin("POST", "/environments", { name: "Session", slug });
    const created = await admin<{ id: string; key: string }>("POST", `/environments/${slug}/keys`, { name: "dashboard" });
    const { cookie } = await signIn(created.body.key);
    expect((await api(null, "GET", "/v1/workflows", undefined, withSession(cookie))).status).toBe(200);
    expect((await admin("POST", `/keys/${created.body.id}/revoke`)).status).toBe(200);
    expectProblem(await api(null, "GET", "/v1/workflows", undefined, withSession(cookie)), 401, "unauthorized");
  });

  it("of the admin reaches the admin API and, naming one, an environment", async () => {
    const { slug } = await createEnvironment();
    const { cookie } = await signIn(ADMIN_KEY);
    expect((await api(null, "GET", "/v1/admin/environments", undefined, withSession(cookie))).status).toBe(200);
    expect((await api(null, "GET", "/v1/workflows", undefined, withSession(cookie, { "clarion-environment": slug }))).status).toBe(200);
    expectProblem(await api(null, "GET", "/v1/workflows", undefined, withSession(cookie)), 403, "forbidden");
  });

  it("of an environment key cannot reach the admin API", async () => {
    const { key } = await createEnvironment();
    const { cookie } = await signIn(key);
    expectProblem(await api(null, "GET", "/v1/admin/environments", undefined, withSession(cookie)), 403, "forbidden");
  });

  it("gives way to an Authorization header", async () => {
    const { cookie } = await signIn(ADMIN_KEY);
    const { key } = await createEnvironment();
    expect((await api(key, "GET", "/v1/workflows", undefined, withSession(cookie))).status).toBe(200);
  });
});

describe("GET and DELETE /v1/dashboard/session", () => {
  it("says who the cookie signs in, and when it ends", async () => {
    const { key, slug } = await createEnvironment();
    const { cookie } = await signIn(key);
    const res = await api<DashboardSession>(null, "GET", "/v1/dashboard/session", undefined, withSession(cookie));
    expect(res.status).toBe(200);
    expect(res.body.kind).toBe("environment");
    expect(res.body.environments).toEqual([{ slug, name: slug }]);
    expect(Date.parse(res.body.expiresAt ?? "")).toBeGreaterThan(Date.now() + 11 * 3600_000);
  });

  it("says who an Authorization header is (the dashboard built for another origin)", async () => {
    const res = await api<DashboardSession>(ADMIN_KEY, "GET", "/v1/dashboard/session");
    expect(res.body).toMatchObject({ kind: "admin", expiresAt: null });
  });

  it("answers 401 when nobody is signed in", async () => {
    expectProblem(await api(null, "GET", "/v1/dashboard/session"), 401, "unauthorized");
  });

  it("refuses to sign out without the dashboard's header", async () => {
    const res = await api(null, "DELETE", "/v1/dashboard/session");
    expectProblem(res, 422, "validation_failed");
    expect(res.headers.get("set-cookie")).toBeNull();
  });

  it("signs out by clearing the cookie", async () => {
    const res = await SELF.fetch("http://clarion.test/v1/dashboard/session", { method: "DELETE", headers: DASHBOARD });
    expect(res.status).toBe(204);
    expect(res.headers.get("set-cookie")).toMatch(/^__Host-clarion_session=; Max-Age=0/);
  });

  it.each([
    ["an environment key", async () => (await createEnvironment()).key, "/v1/workflows"],
    ["the admin credential", async () => ADMIN_KEY, "/v1/admin/environments"],
  ])("signing out with %s ends the session everywhere: a copied cookie stops working at once", async (_, credential, path) => {
    const { cookie } = await signIn(await credential());
    const copied = cookie;
    expect((await api(null, "GET", path, undefined, withSession(copied))).status).toBe(200);
    const out = await api(null, "DELETE", "/v1/dashboard/session", undefined, withSession(cookie));
    expect(out.status).toBe(204);
    expectProblem(await api(null, "GET", path, undefined, withSession(copied)), 401, "unauthorized");
    expectProblem(await api(null, "GET", "/v1/dashboard/session", undefined, withSession(copied)), 401, "unauthorized");
  });

  it("ends only the session signed out: another sign-in with the same key keeps working", async () => {
    const { key } = await createEnvironment();
    const first = await signIn(key);
    const second = await signIn(key);
    await api(null, "DELETE", "/v1/dashboard/session", undefined, withSession(first.cookie));
    expect((await api(null, "GET", "/v1/workflows", undefined, withSession(second.cookie))).status).toBe(200);
  });
});

describe("CORS for a dashboard on another origin", () => {
  const preflight = (origin: string) =>
    SELF.fetch("http://clarion.test/v1/workflows", {
      method: "OPTIONS",
      headers: { origin, "access-control-request-method": "POST", "access-control-request-headers": "authorization,content-type" },
    });

  it("allows exactly the origins in DASHBOARD_ORIGINS, without credentials", async () => {
    const res = await preflight("https://dashboard.example");
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-origin")).toBe("https://dashboard.example");
    expect(res.headers.get("access-control-allow-credentials")).toBeNull();
    const allowed = res.headers.get("access-control-allow-headers")?.toLowerCase().split(",") ?? [];
    expect(allowed).toEqual(expect.arrayContaining(["authorization", "clarion-environment"]));
    expect(allowed).not.toContain("x-clarion-dashboard");
  });

  it("allows no other origin", async () => {
    for (const origin of ["https://evil.example", "https://dashboard.example.evil.example", "null"]) {
      expect((await preflight(origin)).headers.get("access-control-allow-origin")).toBeNull();
    }
  });

  it("lets an allowed origin read the answer and its request id", async () => {
    const { key } = await createEnvironment();
    const res = await api(key, "GET", "/v1/workflows", undefined, { headers: { origin: "https://dashboard.example" } });
    expect(res.headers.get("access-control-allow-origin")).toBe("https://dashboard.example");
    expect(res.headers.get("access-control-expose-headers")).toContain("x-request-id");
  });
});
