import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { createApp } from "../src/app";
import type { ApiResponse } from "./request";

const app = createApp();

/**
 * Calls the API as a production deployment answers it: the test config opts in to private
 * destinations (the fake providers are on 127.0.0.1), this runs the app with the opt-in off.
 */
export async function strictApi<T = Record<string, unknown>>(key: string, method: string, path: string, body?: unknown) {
  const ctx = createExecutionContext();
  const request = new Request(`http://clarion.test${path}`, {
    method,
    headers: { authorization: `ApiKey ${key}`, "content-type": "application/json" },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const res = await app.fetch(request, { ...env, ALLOW_PRIVATE_DESTINATIONS: undefined }, ctx);
  await waitOnExecutionContext(ctx);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : null) as T } satisfies ApiResponse<T>;
}
