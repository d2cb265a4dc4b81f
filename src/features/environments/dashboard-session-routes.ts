import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { unscopedDb } from "../../db/unscoped";
import type { AppEnv } from "../../env";
import { ApiError } from "../../lib/errors";
import { apiRoute, createRouter, json } from "../../lib/openapi";
import { ADMIN_KEY_PREFIX, ownerOfKey } from "./api-keys";
import { credentialOfRequest, inBackground, isAdminCredential, refuse } from "./auth";
import { closeSession, DASHBOARD_HEADER, openSession, sessionOf } from "./dashboard-session";
import { environmentsRepository } from "./repository";
import type { Environment } from "./schemas";

const tags = ["Dashboard"];

const SessionEnvironment = z
  .object({ slug: z.string().openapi({ example: "production" }), name: z.string().openapi({ example: "Production" }) })
  .openapi("SessionEnvironment");

export const DashboardSession = z
  .object({
    kind: z.enum(["admin", "environment"]).openapi({
      description:
        "`admin`: the admin credential, which acts in any environment it names. `environment`: an API key, bound to its one environment.",
    }),
    environments: z.array(SessionEnvironment).openapi({ description: "Where this session may act, by slug." }),
    expiresAt: z.iso.datetime().nullable().openapi({
      description: "When the session cookie ends; null when the credential came in `Authorization`.",
      example: "2026-11-24T12:00:00.000Z",
    }),
  })
  .openapi("DashboardSession");
export type DashboardSession = z.infer<typeof DashboardSession>;

const SignInInput = z
  .object({
    credential: z.string().min(1).max(200).openapi({ description: "An environment's API key or the admin credential." }),
  })
  .strict()
  .openapi("SignInInput", { example: { credential: "ck_dev_4kQ9xW2mTz8LpR5vN1bY7cH3jF6gD0sA" } });

const DashboardHeader = z.object({
  [DASHBOARD_HEADER.toLowerCase()]: z.literal("1").openapi({
    description: "Sent only by the dashboard's own script: no form and no other site can send it (docs/concepts/security.md).",
  }),
});

const answer = (kind: DashboardSession["kind"], environments: Environment[], expiresAt: Date | null): DashboardSession => ({
  kind,
  environments: environments.map(({ slug, name }) => ({ slug, name })),
  expiresAt: expiresAt?.toISOString() ?? null,
});

/** Environments are few (one per stage of a product): every page of them. */
async function allEnvironments(c: Context<AppEnv>): Promise<Environment[]> {
  const repo = environmentsRepository(unscopedDb(c.env));
  const all: Environment[] = [];
  let cursor: string | undefined;
  do {
    const page = await repo.list(100, cursor);
    all.push(...page.data);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return all;
}

/** What a credential may reach; a wrong one is refused (and counted against the client, like any failed sign-in). */
async function reachOf(c: Context<AppEnv>, credential: string): Promise<{ kind: DashboardSession["kind"]; environments: Environment[] }> {
  if (credential.startsWith(ADMIN_KEY_PREFIX)) {
    if (!(await isAdminCredential(c.env, credential))) return refuse(c, new ApiError("unauthorized", "The admin credential is not valid."));
    return { kind: "admin", environments: await allEnvironments(c) };
  }
  const owner = await ownerOfKey(c.env.DB, credential);
  if (!owner) return refuse(c, new ApiError("unauthorized", "The API key is not valid."));
  if (owner.touch) inBackground(c, owner.touch);
  if (owner.kind === "mcp") throw new ApiError("forbidden", "This is an MCP key: it works only at /mcp. Sign in with an API key.");
  const environment = await environmentsRepository(unscopedDb(c.env)).find(owner.slug);
  if (!environment) return refuse(c, new ApiError("unauthorized", "The API key is not valid."));
  return { kind: "environment", environments: [environment] };
}

/**
 * The dashboard's sign-in. Served by the same Worker, it keeps the credential in an HttpOnly
 * cookie that script cannot read (dashboard-session.ts); built for another origin
 * (Cloudflare Pages), it sends `Authorization` instead and asks `GET` who that is.
 */
export const dashboardSessionRoutes = createRouter();

dashboardSessionRoutes.openapi(
  apiRoute({
    method: "post",
    path: "/v1/dashboard/session",
    tags,
    summary: "Sign the dashboard in",
    description:
      "Checks the credential and answers with an HttpOnly, Secure, SameSite=Strict cookie (`__Host-clarion_session`, 12 hours) holding it sealed with AES-GCM. Requests with that cookie and `X-Clarion-Dashboard: 1` then act as the credential; the admin credential names its environment with `Clarion-Environment`.",
    security: [],
    request: { headers: DashboardHeader, body: { required: true, content: json(SignInInput) } },
    responses: { 201: { description: "Signed in; the cookie is set", content: json(DashboardSession) } },
    errors: ["unauthorized", "rate_limited"],
  }),
  async (c) => {
    const { credential } = c.req.valid("json");
    const reach = await reachOf(c, credential.trim());
    const expiresAt = await openSession(c, credential.trim());
    return c.json(answer(reach.kind, reach.environments, expiresAt), 201);
  },
);

dashboardSessionRoutes.openapi(
  apiRoute({
    method: "get",
    path: "/v1/dashboard/session",
    tags,
    summary: "Who is signed in",
    description:
      "The session cookie's credential (with `X-Clarion-Dashboard: 1`), or the one in `Authorization`: its kind and the environments it reaches.",
    security: [],
    responses: { 200: { description: "The signed-in credential's reach", content: json(DashboardSession) } },
    errors: ["unauthorized", "rate_limited"],
  }),
  async (c) => {
    const credential = await credentialOfRequest(c);
    if (!credential) throw new ApiError("unauthorized", "Not signed in: sign in, or send `Authorization: ApiKey <key>`.");
    const reach = await reachOf(c, credential);
    // The same request's session, already looked up by `credentialOfRequest`: no second D1 read.
    const session = c.req.header("authorization") ? null : await sessionOf(c);
    return c.json(answer(reach.kind, reach.environments, session?.expiresAt ?? null), 200);
  },
);

dashboardSessionRoutes.openapi(
  apiRoute({
    method: "delete",
    path: "/v1/dashboard/session",
    tags,
    summary: "Sign the dashboard out",
    description:
      "Ends the session on the server, so every copy of its cookie stops working at once, and clears the cookie. Signing out twice is harmless.",
    security: [],
    request: { headers: DashboardHeader },
    responses: { 204: { description: "Signed out" } },
  }),
  async (c) => {
    await closeSession(c);
    return c.body(null, 204);
  },
);
