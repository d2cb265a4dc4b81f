import type { ApiKeyCreated, Environment } from "../../src/features/environments/schemas";
import { unique } from "../factories";
import { ADMIN_KEY, api } from "../request";

/** Calls the admin API with the test runtime's admin credential. */
export const admin = <T = Record<string, unknown>>(method: string, path: string, body?: unknown) =>
  api<T>(ADMIN_KEY, method, `/v1/admin${path}`, body);

/** An environment made through the admin API, with one key from it. */
export async function adminEnvironment(slug = unique("adm")) {
  const created = await admin<Environment>("POST", "/environments", { name: `Env ${slug}`, slug });
  if (created.status !== 201) throw new Error(`environment not created: ${created.status} ${JSON.stringify(created.body)}`);
  const key = await admin<ApiKeyCreated>("POST", `/environments/${slug}/keys`, { name: "first" });
  if (key.status !== 201) throw new Error(`key not created: ${key.status} ${JSON.stringify(key.body)}`);
  return { environment: created.body, key: key.body };
}
