import type { Bindings } from "../../env";
import { destinationOptions } from "../../lib/destinations";
import type { IntegrationConfig } from "../../providers/types";
import { normaliseAddress } from "../../lib/normalise-address";
import { type Hop, inChildHopSpan } from "../../lib/spans";
import { addressesFor, displayAddress } from "../send/addresses";
import { integrationForAttempt, sendMessage, type SendResult } from "../send/send-message";
import { storeInApp } from "../send/in-app-store";
import { decorateEmail } from "../send/tracking-links";
import { withListUnsubscribe } from "../send/list-unsubscribe";
import type { Send } from "./record";
import type { StepScope } from "./scope";

export interface Delivered {
  send: Send;
  integration: IntegrationConfig;
  /** The addresses it went to, as shown on the message. */
  to: string;
  result: SendResult;
}

/**
 * Calls the providers for every granted send of a step, in parallel (each call over the network
 * once it has one of the invocation's connections, lib/connection-slots.ts): the failover chain
 * picks each attempt's integration.
 */
export function sendAll(env: Bindings, scope: StepScope, sends: Send[], chain: IntegrationConfig[]): Promise<Delivered[]> {
  const { step, trigger } = scope;
  if (step.type === "in_app") return storeAll(env, scope, sends, chain[0]!);
  return Promise.all(
    sends.map(async (send): Promise<Delivered> => {
      const integration = integrationForAttempt(chain, send.attempts)!;
      // A step with every address suppressed was skipped when planned; the others lose only theirs.
      const addresses = addressesFor(step.type, send.recipient.profile, integration).filter(
        (a) => !scope.suppressed.has(normaliseAddress(step.type, a)),
      );
      const content =
        step.type === "email"
          ? withListUnsubscribe(
              await decorateEmail(env, env.PUBLIC_URL, send.messageId, send.content, step.tracking),
              send.recipient.listUnsubscribe,
            )
          : send.content;
      const subscriber = send.recipient.context.subscriber;
      const result = await inChildHopSpan(scope.traced, "clarion.provider.send", hopOf(scope, integration), async (span) => {
        const sent = await sendMessage(
          integration,
          addresses,
          {
            messageId: send.messageId,
            content: content as never,
            providerOverrides: (trigger.overrides?.[integration.provider] as Record<string, unknown> | undefined) ?? {},
            subscriber: {
              subscriberId: send.recipient.profile.subscriberId,
              firstName: (subscriber.firstName as string | null | undefined) ?? null,
              lastName: (subscriber.lastName as string | null | undefined) ?? null,
            },
          },
          destinationOptions(env),
        );
        if (span.isTraced) span.setAttributes(answerAttributes(send.messageId, sent));
        return sent;
      });
      return { send, integration, to: addresses.map((a) => displayAddress(step.type, a)).join(", "), result };
    }),
  );
}

const hopOf = ({ job, trigger, step }: StepScope, integration: IntegrationConfig): Hop => ({
  environmentId: job.environmentId,
  workflow: trigger.workflowKey,
  transactionId: job.transactionId,
  channel: step.type,
  provider: integration.provider,
});

/** The provider's answer, on the span of the call that got it. */
const answerAttributes = (messageId: string, { outcome }: SendResult) => ({
  "clarion.message_id": messageId,
  "clarion.outcome": outcome.ok ? "sent" : outcome.kind,
  "clarion.error_code": outcome.ok ? undefined : outcome.code,
});

/** The in-app step's sends: stored by Clarion in one batch rather than sent one by one. */
async function storeAll(env: Bindings, scope: StepScope, sends: Send[], integration: IntegrationConfig): Promise<Delivered[]> {
  const results = await inChildHopSpan(scope.traced, "clarion.provider.send", hopOf(scope, integration), () =>
    storeInApp(
      env,
      scope,
      sends.map((s) => ({ messageId: s.messageId, subscriberId: s.recipient.profile.subscriberId, content: s.content, isNew: s.isNew })),
    ),
  );
  return sends.map((send, i) => ({ send, integration, to: send.recipient.profile.subscriberId, result: results[i]! }));
}
