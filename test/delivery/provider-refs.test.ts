// A send's provider ref (a row in the log shard of the provider's message id) is what a status
// webhook finds the message by. It is written only for providers that have a status webhook:
// for the sandbox and push providers it would be one more row in another shard per send, never read.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { LogStore } from "../../src/durable-objects/client/log-store";
import { PROVIDERS, reportsByProviderId } from "../../src/providers/registry";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { acceptThenCrash, startTriggers } from "../ledger";
import { loggedMessages } from "../log";

describe("provider refs", () => {
  it("are kept for the providers with a status webhook, and for an id this build does not know", () => {
    const reporting = Object.entries(PROVIDERS)
      .filter(([id]) => reportsByProviderId(id))
      .map(([id]) => id)
      .sort();
    expect(reporting).toEqual(["brevo", "mailgun", "plivo", "postmark", "resend", "sendgrid", "ses", "telnyx", "twilio", "vonage"].sort());
    expect(reportsByProviderId("fcm")).toBe(false);
    expect(reportsByProviderId("sandbox-email")).toBe(false);
    expect(reportsByProviderId("a-provider-from-a-later-build")).toBe(true);
  });

  it("are not written for a sandbox send, whose message keeps its provider id", async () => {
    const { id, key } = await createSandboxEnvironment();
    await createWorkflow(key, { key: "no-refs", steps: [{ id: "mail", type: "email", template: { subject: "Hi", text: "Hello" } }] });
    const accepted = await acceptThenCrash(id, "no-refs", { subscriberId: unique("s"), email: "ada@example.com" }, { loseJob: true });
    await startTriggers(id, [accepted.transactionId]);
    const [message] = await loggedMessages(id, { transactionId: accepted.transactionId });
    expect(message).toMatchObject({ status: "sent", provider: "sandbox-email" });
    expect(message!.providerMessageId).toBeTruthy();
    expect(await new LogStore(env).refs([message!.providerMessageId!])).toEqual([]);
  });
});
