import { api } from "../request";

/** The `User-Agent`s of Novu's SDKs: `@novu/api` names itself; `@novu/node` sends axios's. */
export const NOVU_API_AGENT = "speakeasy-sdk/typescript 3.19.1 2.933.0 3.19.0 @novu/api";
export const NOVU_NODE_AGENT = "axios/1.13.2";

/** Calls the Worker's Novu API (`/novu` + `path`) as one of Novu's SDKs does. */
export const novu = <T = Record<string, unknown>>(
  key: string | null,
  method: string,
  path: string,
  body?: unknown,
  agent = NOVU_API_AGENT,
) => api<T>(key, method, `/novu${path}`, body, { headers: { "user-agent": agent } });
