import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { environmentForKey } from "../../features/environments/api-keys";
import { ApiError } from "../errors";

const SCHEME = /^(?:ApiKey|Bearer)\s+(\S+)\s*$/i;

/** Every authenticated request is bound to the one environment its key belongs to. */
export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  const match = SCHEME.exec(c.req.header("authorization") ?? "");
  if (!match?.[1]) {
    throw new ApiError("unauthorized", "Send your API key in the header `Authorization: ApiKey <key>`.");
  }
  const environmentId = await environmentForKey(c.env.DB, match[1]);
  if (!environmentId) throw new ApiError("unauthorized", "The API key is not valid.");
  c.set("environmentId", environmentId);
  await next();
});
