import type { Bindings } from "../../../env";

/** Endpoints per environment when the deployment sets no `WEBHOOK_ENDPOINTS_MAX`. */
export const DEFAULT_ENDPOINTS_MAX = 20;

/** The deployment's cap on webhook endpoints per environment; a value that is not a positive integer keeps the default. */
export function endpointsMax(env: Pick<Bindings, "WEBHOOK_ENDPOINTS_MAX">): number {
  const value = Number(env.WEBHOOK_ENDPOINTS_MAX);
  return Number.isInteger(value) && value > 0 ? value : DEFAULT_ENDPOINTS_MAX;
}
