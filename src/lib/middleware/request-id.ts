import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../../env";
import { uuidv7 } from "../ids";

export const requestId = createMiddleware<AppEnv>(async (c, next) => {
  const id = c.req.header("x-request-id") ?? uuidv7();
  c.set("requestId", id);
  await next();
  c.header("x-request-id", id);
});
