import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../factories";
import { createWorkflow } from "../e2e/helpers";
import { api } from "../request";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

const MAIL = [{ id: "mail", type: "email", template: { subject: "News", html: "<p>Hi</p>" } }];
const POST_VALUE = "List-Unsubscribe=One-Click";

/** An environment sending email through a real adapter to the fake provider, and one email of a workflow. */
async function sendThrough(provider: "sendgrid" | "postmark", workflow: Record<string, unknown> = {}) {
  const { id, key } = await createEnvironment();
  const scenario = fakeProviderScenario();
  await scenario.script([
    provider === "sendgrid"
      ? { status: 202, headers: { "x-message-id": "sg-1" }, body: "" }
      : { status: 200, body: { MessageID: "pm-1", ErrorCode: 0, Message: "OK", To: "ada@example.com" } },
  ]);
  const credentials =
    provider === "sendgrid" ? { apiKey: "SG.test.key", from: "Acme <hi@acme.dev>" } : { serverToken: "pm-token", from: "hi@acme.dev" };
  await createIntegration(id, { provider, channel: "email", credentials, baseUrl: scenario.baseUrl, primary: true });
  const workflowKey = unique("news").toLowerCase();
  await createWorkflow(key, { key: workflowKey, steps: MAIL, ...workflow });
  const subscriberId = unique("s");
  const [message] = await deliveredMessages(
    key,
    await triggerDelivered(key, { workflow: workflowKey, to: { subscriberId, email: "ada@example.com" } }),
    1,
  );
  expect(message!.status).toBe("sent");
  const [request] = await scenario.captured();
  return { key, subscriberId, workflowKey, body: JSON.parse(request!.body) as Record<string, unknown> };
}

describe("List-Unsubscribe on every email of a non-critical workflow", () => {
  it("goes to SendGrid as `headers`, and its URL unsubscribes in one click", async () => {
    const { key, subscriberId, workflowKey, body } = await sendThrough("sendgrid");
    const headers = body.headers as Record<string, string>;
    expect(headers["List-Unsubscribe-Post"]).toBe(POST_VALUE);
    const [, url] = /^<(http:\/\/127\.0\.0\.1:8787\/u\/[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+)>$/.exec(headers["List-Unsubscribe"]!) ?? [];
    expect(url).toBeDefined();

    // As Gmail sends it.
    const res = await SELF.fetch(`http://clarion.test${new URL(url!).pathname}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: POST_VALUE,
    });
    expect(res.status).toBe(200);
    const prefs = await api<{ workflows: Record<string, { email?: boolean }> }>(key, "GET", `/v1/subscribers/${subscriberId}/preferences`);
    expect(prefs.body.workflows[workflowKey]).toEqual({ email: false });
  });

  it("goes to Postmark as `Headers` [{Name, Value}]", async () => {
    const { body } = await sendThrough("postmark");
    expect(body.Headers).toEqual([
      { Name: "List-Unsubscribe", Value: expect.stringMatching(/^<http:\/\/127\.0\.0\.1:8787\/u\/[^>]+>$/) },
      { Name: "List-Unsubscribe-Post", Value: POST_VALUE },
    ]);
  });

  it.each([{ critical: true }, { unsubscribe: "none" }])("is left out when the workflow is %j", async (workflow) => {
    const { body } = await sendThrough("sendgrid", workflow);
    expect(body.headers).toBeUndefined();
  });
});
