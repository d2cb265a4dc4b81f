import type { Step } from "../../engine/steps";
import { placeSteps } from "../../engine/workflow-tree";
import { checkDestination, type DestinationOptions } from "../../lib/destinations";
import { ApiError, type FieldError } from "../../lib/errors";

const isLiquid = (source: string) => source.includes("{{") || source.includes("{%");

/**
 * A fetch step whose URL is a literal is judged by the destination policy when it is saved (422
 * `destination_not_allowed`, with the step's path), rather than failing every run. A URL with
 * Liquid can only be judged once rendered: delivery judges it again before every request.
 */
export function checkFetchDestinations(steps: readonly Step[], options: DestinationOptions): void {
  const errors: FieldError[] = [];
  for (const { step, at } of placeSteps(steps)) {
    if (step.type !== "http" || isLiquid(step.request.url)) continue;
    const verdict = checkDestination(step.request.url.trim(), options);
    if (!verdict.ok) errors.push({ path: [...at, "request", "url"].join("."), message: `Not an allowed destination: ${verdict.reason}.` });
  }
  if (errors.length > 0) throw new ApiError("destination_not_allowed", "A fetch step calls a destination the policy refuses.", errors);
}
