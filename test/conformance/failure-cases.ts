// The failure cases every provider adapter must handle, whatever the provider. One table, run over
// every adapter in the registry by failure-cases.test.ts; each provider only says how to build an
// integration and a message, and what its answers look like (provider-setups.ts).
import type { SendOutcome } from "../../src/providers/types";
import type { Answer } from "./capture-server";

/** How a provider's answers look, and how to send it one message through the capture server. */
export interface ProviderSetup {
  /** Credentials and baseUrl for an integration whose requests reach `url` (the capture server). */
  integration(url: string): { credentials: Record<string, unknown>; baseUrl: string | null };
  /** The address to send to; webhook-style providers (chat, Web Push) take a URL under `url`. */
  to(url: string): string;
  content: Record<string, unknown>;
  /** A real success answer, and the id the adapter keeps from it. */
  success: Answer;
  successId: string;
  /**
   * Where the id comes from. `answer`: a 2xx without it is malformed (retried). `optional`: the
   * provider may name none (Slack, Teams, Web Push, APNs), so any 2xx is a success.
   */
  idFrom: "answer" | "optional";
  /** Answers the adapter needs before the send itself (FCM's token exchange). */
  before?: Answer[];
  /** The provider's own error body for a status, when a generic JSON one would not do. */
  errorBody?(status: number): Answer;
  /** What the provider answers at send time for an address that will never work, if it has such an answer. */
  invalidRecipient?: Answer;
}

/** An adapter that makes no HTTP request (the sandboxes): nothing here applies, and the reason says why. */
export interface NoHttp {
  noHttp: string;
}

export type Expected = Partial<Extract<SendOutcome, { ok: false }>> | Partial<Extract<SendOutcome, { ok: true }>>;

export interface FailureCase {
  name: string;
  /** What the provider does: answer (after the setup's `before` answers), or not be there at all. */
  provider: (setup: ProviderSetup) => Answer | "unreachable";
  expected: (setup: ProviderSetup) => Expected;
  /** Runs only for setups that have what the case needs. */
  applies?: (setup: ProviderSetup) => boolean;
}

/** The integration's timeout in these cases, and how long a hanging provider takes to answer. */
export const TIMEOUT_MS = 400;
const HANG_MS = 2_000;

const genericError = (status: number): Answer => ({ status, body: { message: `HTTP ${status} from the provider` } });
const errorAnswer = (setup: ProviderSetup, status: number): Answer => setup.errorBody?.(status) ?? genericError(status);

/** Padding in front of the id, so a body cut at the old 500-byte error cap loses the id (or breaks the JSON). */
const PADDING = "x".repeat(2_000);
function padded(answer: Answer): Answer {
  const { body } = answer;
  if (typeof body === "string") return { ...answer, body: body.startsWith("<") ? `<!-- ${PADDING} -->${body}` : body };
  if (body && typeof body === "object" && !Array.isArray(body)) return { ...answer, body: { padding: PADDING, ...body } };
  return answer;
}

const success = (setup: ProviderSetup): Expected => ({ ok: true, providerMessageId: setup.successId });

export const FAILURE_CASES: FailureCase[] = [
  {
    name: "keeps the id of a success answer",
    provider: (setup) => setup.success,
    expected: success,
  },
  {
    name: "reads a success answer over 500 bytes whole",
    provider: (setup) => padded(setup.success),
    expected: success,
  },
  {
    name: "retries a 2xx whose body is not the provider's (malformed_response), unless the id is optional",
    provider: (setup) => ({
      status: setup.success.status,
      headers: { "content-type": "text/html" },
      body: "<html><body>Welcome to the captive portal</body></html>",
    }),
    expected: (setup) => (setup.idFrom === "answer" ? { ok: false, kind: "retryable", code: "malformed_response" } : { ok: true }),
  },
  {
    name: "retries a 429 after its Retry-After seconds",
    provider: (setup) => {
      const answer = errorAnswer(setup, 429);
      return { ...answer, headers: { ...answer.headers, "retry-after": "7" } };
    },
    expected: () => ({ ok: false, kind: "retryable", retryAfterSeconds: 7 }),
  },
  {
    name: "retries a 500",
    provider: (setup) => errorAnswer(setup, 500),
    expected: () => ({ ok: false, kind: "retryable" }),
  },
  {
    name: "retries a 503 whose body is a proxy's HTML page",
    provider: () => ({
      status: 503,
      headers: { "content-type": "text/html" },
      body: "<html><body><h1>503 Service Unavailable</h1></body></html>",
    }),
    expected: () => ({ ok: false, kind: "retryable" }),
  },
  {
    name: "reports an unknown outcome when the provider does not answer within the timeout",
    provider: (setup) => ({ ...setup.success, delayMs: HANG_MS }),
    expected: () => ({ ok: false, kind: "unknown", code: "timeout" }),
  },
  {
    name: "retries when the provider cannot be reached",
    provider: () => "unreachable",
    expected: () => ({ ok: false, kind: "retryable", code: "network_error" }),
  },
  {
    name: "removes the address on the provider's invalid-recipient answer",
    applies: (setup) => setup.invalidRecipient !== undefined,
    provider: (setup) => setup.invalidRecipient!,
    expected: () => ({ ok: false, kind: "invalid_recipient" }),
  },
];
