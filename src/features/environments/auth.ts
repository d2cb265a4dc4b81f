import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { ApiError } from "../../lib/errors";
import { environmentForKey } from "./api-keys";

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
