import type { Context } from "hono";
import type { AppEnv } from "../../../env";
import { ApiError } from "../../../lib/errors";
import { limitKeyless } from "../../../lib/middleware/rate-limit";
import { ratesFor } from "../../../lib/rate-limit/policy";

/**
 * `test` and `replay` of one endpoint share one count (`webhookActions`, default 20 a minute): each
 * sends to, or queues up to 5,000 events for, a host the caller chose, so a key alone must not be
 * able to turn Clarion into a traffic amplifier.
 */
export async function limitEndpointAction(c: Context<AppEnv>, environmentSlug: string, endpointId: string): Promise<void> {
  const rate = ratesFor(c.env.RATE_LIMITS, environmentSlug).webhookActions;
  const refused = await limitKeyless(c.env, [{ name: "webhook_endpoint", identifier: endpointId, rate }]);
  if (refused)
    throw new ApiError(
      "rate_limited",
      `This webhook endpoint was tested or replayed more than ${rate.limit} times in ${rate.period} s; retry after the time in \`Retry-After\`.`,
      undefined,
      { headers: refused },
    );
}
