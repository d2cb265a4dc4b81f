import type { Context } from "hono";
import type { AppEnv } from "../../env";

/**
 * Whether a request comes from one of Novu's SDKs. `@novu/api` (and Novu's other Speakeasy SDKs)
 * name themselves in `User-Agent` (`speakeasy-sdk/typescript 3.19.1 … @novu/api`); `@novu/node`
 * sends no header of its own, only axios's default `User-Agent: axios/<version>`. Where a Novu
 * route and a native route share a method and path, and for the shape of errors on Novu's routes,
 * this decides which API answers.
 */
export function isNovuClient(c: Context<AppEnv>): boolean {
  const agent = c.req.header("user-agent") ?? "";
  return /novu/i.test(agent) || agent.startsWith("axios/");
}

/** The paths Novu's SDKs call: errors there take Novu's shape for a Novu client. */
export const NOVU_PATHS = ["/v1/events/*", "/v2/*", "/v1/subscribers", "/v1/subscribers/*", "/v1/topics", "/v1/topics/*"];
