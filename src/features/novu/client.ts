import type { Context, Next } from "hono";
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

/** A handler for a method and path Clarion's own API serves too: Novu's answer for a Novu client; anyone else falls through to Clarion's route. */
export const forNovu =
  (handler: (c: Context<AppEnv>) => Promise<Response>) =>
  async (c: Context<AppEnv>, next: Next): Promise<Response | undefined> => {
    if (!isNovuClient(c)) {
      await next();
      return undefined;
    }
    return handler(c);
  };
