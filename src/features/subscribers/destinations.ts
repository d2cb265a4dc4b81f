import type { SubscriberInput } from "../../contract/recipients";
import { checkDestination, type DestinationOptions } from "../../lib/destinations";
import type { FieldError } from "../../lib/errors";

/** A push token that is a Web Push subscription (JSON with an `endpoint`) names where the push goes. */
function pushEndpoint(token: string): string | undefined {
  if (!token.trimStart().startsWith("{")) return undefined;
  try {
    const endpoint = (JSON.parse(token) as { endpoint?: unknown }).endpoint;
    return typeof endpoint === "string" ? endpoint : undefined;
  } catch {
    return undefined;
  }
}

/** The subscriber's chat webhook URLs and Web Push endpoints that the destination policy refuses, by field path. */
export function refusedSubscriberDestinations(input: SubscriberInput, options: DestinationOptions): FieldError[] {
  const errors: FieldError[] = [];
  const refuse = (path: string, target: string) => {
    const verdict = checkDestination(target, options);
    if (!verdict.ok) errors.push({ path, message: `Not an allowed destination: ${verdict.reason}.` });
  };
  input.channels?.chat?.forEach((address, i) => {
    if ("webhookUrl" in address) refuse(`channels.chat.${i}.webhookUrl`, address.webhookUrl);
  });
  input.channels?.push?.forEach((address, i) => {
    const endpoint = pushEndpoint(address.token);
    if (endpoint !== undefined) refuse(`channels.push.${i}.token`, endpoint);
  });
  return errors;
}
