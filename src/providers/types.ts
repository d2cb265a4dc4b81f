import type { z } from "@hono/zod-openapi";
import type { ContentByChannel } from "../engine/content";
import type { Channel, ProviderChannel } from "../engine/steps";
import type { DestinationOptions } from "../lib/destinations";

/** An integration as an adapter sees it: credentials already decrypted. */
export interface IntegrationConfig {
  id: string;
  provider: string;
  channel: Channel;
  credentials: Record<string, unknown>;
  /** Set when the stored credentials do not decrypt for this row; `credentials` is then empty and nothing is sent. */
  credentialsError?: string;
  settings: Record<string, unknown>;
  baseUrl: string | null;
}

/** What a send produced that the engine must store alongside the message (sandbox captures). */
export interface Capture {
  channel: Channel;
  provider: string;
  to: string;
  content: Record<string, unknown>;
}

export interface SendRequest<C extends Channel> {
  messageId: string;
  /** The address for this channel: email, E.164 phone, push token or chat webhook URL. */
  to: string;
  content: ContentByChannel[C];
  /** `overrides.<providerId>` from the trigger, merged into the provider's own request body. */
  providerOverrides: Record<string, unknown>;
  subscriber: { subscriberId: string; firstName: string | null; lastName: string | null };
}

/**
 * What every request to a provider carries, from the caller that starts it (a send or a check):
 * the integration's timeout and the destination policy the shared fetch checks before anything leaves.
 */
export interface Outbound {
  signal: AbortSignal;
  destinations: DestinationOptions;
}

export interface SendContext {
  integration: IntegrationConfig;
  outbound: Outbound;
  capture: (capture: Capture) => void;
}

/**
 * `unknown`: the request left but no answer came back in time, so the provider may have sent
 * the message. It is retried only where the provider deduplicates (see `deduplicates`).
 */
export type FailureKind = "retryable" | "permanent" | "invalid_recipient" | "unknown";

/**
 * A send's result. Expected failures are values, never exceptions: `retryable` is tried again
 * (honouring `retryAfterSeconds`), `permanent` fails the message, `invalid_recipient` fails it
 * and removes the address.
 */
export type SendOutcome =
  | { ok: true; providerMessageId: string }
  | { ok: false; kind: FailureKind; code: string; message: string; retryAfterSeconds?: number };

export type DeliveryStatus = "delivered" | "bounced" | "failed" | "opened" | "clicked" | "undeliverable";

/** Why a provider's report puts the recipient's address on the environment's suppression list. */
export type SuppressionSignal = "hard_bounce" | "complaint" | "unsubscribed";

export interface StatusUpdate {
  providerMessageId: string;
  /** Absent when the report changes no delivery status but still matters (an unsubscribe). */
  status?: DeliveryStatus;
  at: Date;
  detail?: Record<string, unknown>;
  /** The provider's id for this event (sg_event_id, Mailgun's event id): a second report with it is a replay. */
  eventId?: string;
  /** Set when the address must not be sent to again. */
  suppress?: SuppressionSignal;
}

/** A provider's status webhook: verify the raw body's signature, then read the updates it carries. */
export interface StatusWebhook {
  /** `url`: the URL the provider called, for schemes that sign it (Twilio, Plivo), when the route passes it. */
  verify(request: { headers: Headers; body: string; url?: string }, integration: IntegrationConfig): Promise<boolean>;
  parse(body: string): StatusUpdate[];
  /**
   * The provider's id for this delivery of the webhook (svix-id, Mailgun's signature token, a
   * signature nonce), when it has one: a verified request seen before is a replay and changes nothing.
   */
  replayKey?(request: { headers: Headers; body: string }): string | null;
}

/** One provider adapter per file; the registry maps provider ids to these. */
export interface ProviderAdapter<C extends ProviderChannel = ProviderChannel> {
  id: string;
  channel: C;
  /** Shape of the integration's credentials and settings; the dashboard builds its form from it. */
  credentials: z.ZodType;
  /**
   * The provider drops a repeated send with the same idempotency key, which the adapter derives
   * from the message id: a retry after an `unknown` outcome cannot send the message twice.
   */
  deduplicates?: true;
  /**
   * The adapter answers in the isolate and opens no connection (the sandbox providers): its sends
   * take none of the invocation's six connection slots (lib/connection-slots.ts).
   */
  inProcess?: true;
  /**
   * Credential fields (dotted paths into the parsed credentials) that decide where a credential or
   * a signed token goes, besides the integration's `baseUrl`: changing one needs the stored
   * secrets re-supplied, and a URL among them is held to the destination policy.
   */
  destinations?: readonly string[];
  send(request: SendRequest<C>, context: SendContext): Promise<SendOutcome>;
  /**
   * Optional: verifies the credentials with a harmless call (no message sent, nothing changed),
   * for `POST /v1/integrations/{id}/check`. Runs only once the credentials match `credentials`;
   * `detail` is shown to the user, so never put a secret in it. Without it the check validates the form.
   */
  check?(integration: IntegrationConfig, outbound: Outbound): Promise<{ ok: boolean; detail: string }>;
  webhook?: StatusWebhook;
}
