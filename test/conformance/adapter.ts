import type { Capture, IntegrationConfig, Outbound, ProviderAdapter, SendOutcome, SendRequest } from "../../src/providers/types";
import type { ProviderChannel } from "../../src/engine/steps";

/** The conformance suite calls adapters directly against capture servers on 127.0.0.1. */
export const localOutbound = (signal: AbortSignal = AbortSignal.timeout(5000)): Outbound => ({
  signal,
  destinations: { allowPrivate: true },
});

/** Runs one adapter send the way the delivery engine does, against a given base URL. */
export async function sendWith<C extends ProviderChannel>(
  adapter: ProviderAdapter<C>,
  integration: Omit<IntegrationConfig, "id" | "provider" | "channel" | "settings"> & { settings?: Record<string, unknown> },
  request: Omit<SendRequest<C>, "messageId" | "providerOverrides" | "subscriber"> & Partial<SendRequest<C>>,
  signal: AbortSignal = AbortSignal.timeout(5000),
): Promise<{ outcome: SendOutcome; captures: Capture[] }> {
  const captures: Capture[] = [];
  const outcome = await adapter.send(
    {
      messageId: "msg_conformance",
      providerOverrides: {},
      subscriber: { subscriberId: "sub-1", firstName: "Ada", lastName: "Lovelace" },
      ...request,
    } as SendRequest<C>,
    {
      integration: { id: "int_conformance", provider: adapter.id, channel: adapter.channel, settings: {}, ...integration },
      outbound: localOutbound(signal),
      capture: (c) => captures.push(c),
    },
  );
  return { outcome, captures };
}
