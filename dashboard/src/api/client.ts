// The dashboard's way to the API: openapi-fetch typed by openapi.d.ts, which `npm run openapi`
// generates from the Worker's /openapi.json (no hand-copied server types).
import createClient, { type Client } from "openapi-fetch";
import type { paths } from "./openapi";
import { ApiError, networkProblem, toProblem } from "./problem";

export type { paths };

/** A client whose every request says who is asking and in which environment. */
export type Api = Client<paths>;

/** Where the API is: the page's own origin when the Worker serves the dashboard, or VITE_API_URL for a Pages build. */
export const API_URL = (import.meta.env.VITE_API_URL ?? "").replace(/\/$/, "");

/**
 * How the dashboard proves who it is. Served by the Worker (same origin): an HttpOnly session
 * cookie that no script reads, plus the `X-Clarion-Dashboard` header without which the API
 * ignores the cookie. Built for another origin (Cloudflare Pages, VITE_API_URL): that cookie would
 * be third-party, so the credential stays in this tab's sessionStorage and goes in `Authorization`.
 */
export const SESSION_MODE: "cookie" | "header" = API_URL ? "header" : "cookie";

const fetchOrProblem: typeof fetch = async (input, init) => {
  try {
    return await fetch(input, init);
  } catch (error) {
    if (error instanceof DOMException && error.name === "AbortError") throw error;
    throw new ApiError(networkProblem());
  }
};

/**
 * A client that adds `headers` to every request: the session builds one per credential and
 * environment and hands it down in React context (api/context.tsx). A call may still name its
 * own environment (the admin's environment page acts in the environment it shows).
 */
export function createApi(headers: Record<string, string>): Api {
  const client = createClient<paths>({ baseUrl: API_URL, fetch: fetchOrProblem });
  client.use({
    onRequest({ request }) {
      for (const [name, value] of Object.entries(headers)) if (!request.headers.has(name)) request.headers.set(name, value);
      return request;
    },
  });
  return client;
}

/** The options that make one call act in `slug` rather than in the environment chosen in the header. */
export const inEnvironment = (slug: string) => ({ headers: { "Clarion-Environment": slug } });

/**
 * The data of an answer, or an ApiError with its problem document. Every call goes through it:
 * `const workflows = await unwrap(api.GET("/v1/workflows"))`.
 */
export async function unwrap<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) {
    const problem = toProblem(response.status, response.statusText, error);
    const retryAfter = Number.parseInt(response.headers.get("retry-after") ?? "", 10);
    throw new ApiError(Number.isFinite(retryAfter) ? { ...problem, retryAfterSeconds: retryAfter } : problem);
  }
  return data as T;
}
