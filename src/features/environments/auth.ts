import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { ApiError } from "../../lib/errors";
import { limitFailedAuth, limitRequest } from "../../lib/middleware/rate-limit";
import { ownerOfKey } from "./api-keys";

const SCHEME = /^(?:ApiKey|Bearer)\s+(\S+)\s*$/i;

/** Every authenticated request is bound to the one environment its key belongs to, and counted against its limits. */
export const apiKeyAuth = createMiddleware<AppEnv>(async (c, next) => {
  const match = SCHEME.exec(c.req.header("authorization") ?? "");
  const owner = match?.[1] ? await ownerOfKey(c.env.DB, match[1]) : null;
  if (!owner) {
    const limited = await limitFailedAuth(c);
    if (limited) throw limited;
    throw match?.[1]
      ? new ApiError("unauthorized", "The API key is not valid.")
      : new ApiError("unauthorized", "Send your API key in the header `Authorization: ApiKey <key>`.");
  }
  const headers = await limitRequest(c, owner);
  c.set("environmentId", owner.environmentId);
  await next();
  for (const [name, value] of Object.entries(headers)) c.res.headers.set(name, value);
});
