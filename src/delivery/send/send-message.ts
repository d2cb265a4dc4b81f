import type { ContentByChannel } from "../../engine/content";
import type { Channel, ProviderChannel } from "../../engine/steps";
import type { DestinationOptions } from "../../lib/destinations";
import { providerFor } from "../../providers/registry";
import type { Capture, FailureKind, IntegrationConfig, SendOutcome, SendRequest } from "../../providers/types";
import { timedCall } from "../../lib/connection-slots";

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_ATTEMPTS_PER_PROVIDER = 3;

const setting = (integration: IntegrationConfig, name: string, fallback: number) => {
  const value = integration.settings[name];
  return typeof value === "number" && value > 0 ? value : fallback;
};

export const attemptsPerProvider = (integration: IntegrationConfig) => setting(integration, "maxAttempts", DEFAULT_ATTEMPTS_PER_PROVIDER);

/**
 * Which integration a message's next attempt goes to: each integration gets its configured
 * number of attempts in failover order; undefined once every one has had its turn.
 */
export function integrationForAttempt(chain: IntegrationConfig[], attemptsSoFar: number): IntegrationConfig | undefined {
  let remaining = attemptsSoFar;
  for (const integration of chain) {
    const budget = attemptsPerProvider(integration);
    if (remaining < budget) return integration;
    remaining -= budget;
  }
  return undefined;
}

/**
 * Where a failed send goes next, or undefined when it is final. After a timeout (`unknown`) the
 * message may have been sent: it is tried again only through the same integration when that
 * provider deduplicates (same message id, same idempotency key), and fails over only when the
 * integration opts in with `failoverOnTimeout` (which accepts that a message may be sent twice).
 */
export function nextAttempt(
  outcome: { kind: FailureKind },
  integration: IntegrationConfig,
  chain: IntegrationConfig[],
  attemptsSoFar: number,
): IntegrationConfig | undefined {
  if (outcome.kind === "retryable") return integrationForAttempt(chain, attemptsSoFar);
  if (outcome.kind !== "unknown") return undefined;
  const next = integrationForAttempt(chain, attemptsSoFar);
  if (integration.settings.failoverOnTimeout === true) return next;
  return next?.id === integration.id && providerFor(integration.provider)?.deduplicates ? next : undefined;
}

export interface SendResult {
  outcome: SendOutcome;
  captures: Capture[];
  /** Addresses the provider said are gone. */
  invalidAddresses: string[];
}

/** Sends one message to each of its addresses through one integration, within the integration's timeout. */
export async function sendMessage<C extends Channel>(
  integration: IntegrationConfig,
  addresses: string[],
  request: Omit<SendRequest<C>, "to">,
  destinations: DestinationOptions,
): Promise<SendResult> {
  const adapter = providerFor(integration.provider);
  const captures: Capture[] = [];
  if (!adapter || adapter.channel !== integration.channel) {
    return {
      outcome: {
        ok: false,
        kind: "permanent",
        code: "unknown_provider",
        message: `No ${integration.channel} provider "${integration.provider}".`,
      },
      captures,
      invalidAddresses: [],
    };
  }
  if (integration.credentialsError) {
    const message = `The integration's credentials cannot be read: ${integration.credentialsError} Save them again.`;
    return { outcome: { ok: false, kind: "permanent", code: "credentials_unreadable", message }, captures, invalidAddresses: [] };
  }
  // Planning checked the first integration's addresses; a failover integration's may all be
  // missing or suppressed, and there is nothing to call then.
  if (addresses.length === 0) {
    return {
      outcome: {
        ok: false,
        kind: "permanent",
        code: "missing_address",
        message: `No ${integration.channel} address of the subscriber can be sent to through ${integration.provider}.`,
      },
      captures,
      invalidAddresses: [],
    };
  }
  // Each call over the network waits for one of the invocation's connections before its timeout
  // starts (lib/connection-slots.ts); the sandbox answers in the isolate.
  const sendTo = (to: string) =>
    timedCall(
      setting(integration, "timeoutMs", DEFAULT_TIMEOUT_MS),
      (signal): Promise<SendOutcome> =>
        adapter
          .send({ ...request, to, content: request.content as ContentByChannel[ProviderChannel] } as SendRequest<ProviderChannel>, {
            integration,
            outbound: { signal, destinations },
            capture: (c) => captures.push(c),
          })
          .catch(
            (error: unknown): SendOutcome =>
              signal.aborted
                ? {
                    ok: false,
                    kind: "unknown",
                    code: "timeout",
                    message: "The provider did not answer within its timeout: it may have sent the message.",
                  }
                : { ok: false, kind: "retryable", code: "adapter_error", message: String(error) },
          ),
      !adapter.inProcess,
    );
  const outcomes = await Promise.all(addresses.map(sendTo));
  const invalidAddresses = addresses.filter((_, i) => {
    const o = outcomes[i]!;
    return !o.ok && o.kind === "invalid_recipient";
  });
  // One success is a delivery; otherwise an unknown outcome (a send may have happened), then the
  // most hopeful failure decides what happens next.
  const outcome =
    outcomes.find((o) => o.ok) ??
    outcomes.find((o) => !o.ok && o.kind === "unknown") ??
    outcomes.find((o) => !o.ok && o.kind === "retryable") ??
    outcomes.find((o) => !o.ok && o.kind === "permanent") ??
    outcomes[0]!;
  return { outcome, captures, invalidAddresses };
}
