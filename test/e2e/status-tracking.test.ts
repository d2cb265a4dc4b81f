import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api } from "../request";
import { createEnvironment, createIntegration, createSandboxEnvironment, fakeProviderScenario, unique } from "../factories";
import { createWorkflow, messageDetail, settledMessages, trigger, postResendWebhook as postWebhookSigned, eventually } from "./helpers";

const SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

async function sentThroughResend() {
  const { id, key } = await createEnvironment();
  const scenario = fakeProviderScenario();
  const providerId = `re_${unique("id")}`;
  await scenario.script([{ status: 200, body: { id: providerId } }]);
  const integrationId = await createIntegration(id, {
    provider: "resend",
    channel: "email",
    credentials: { apiKey: "re_x", from: "a@acme.dev", webhookSecret: SECRET },
    baseUrl: scenario.baseUrl,
    primary: true,
  });
  await createWorkflow(key, { key: "hello", steps: [{ id: "mail", type: "email", template: { subject: "hello", text: "Hello" } }] });
  const transactionId = await trigger(key, { workflow: "hello", to: { subscriberId: unique("s"), email: "w@example.com" } });
  const [message] = await settledMessages(key, transactionId, 1);
  return { key, integrationId, providerId, message: message! };
}

const postWebhook = (integrationId: string, body: string, secret = SECRET) => postWebhookSigned(integrationId, body, secret);

describe("POST /v1/webhooks/{provider}/{integrationId}", () => {
  it("moves a sent message to delivered when the signature verifies", async () => {
    const { key, integrationId, providerId, message } = await sentThroughResend();
    const body = JSON.stringify({
      type: "email.delivered",
      created_at: new Date().toISOString(),
      data: { email_id: providerId, to: ["w@example.com"] },
    });
    const res = await postWebhook(integrationId, body);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ received: 1, applied: 1 });
    const detail = await messageDetail(key, message.id);
    expect(detail.status).toBe("delivered");
    expect(detail.events.map((e) => e.status)).toEqual(["queued", "sending", "sent", "delivered"]);
  });

  it("rejects a webhook whose signature does not verify and changes nothing", async () => {
    const { key, integrationId, providerId, message } = await sentThroughResend();
    const body = JSON.stringify({ type: "email.bounced", created_at: new Date().toISOString(), data: { email_id: providerId } });
    const res = await postWebhook(integrationId, body, "whsec_d3Jvbmcgc2VjcmV0IHdyb25nIHNlY3JldA==");
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toContain("application/problem+json");
    expect(((await res.json()) as { code: string }).code).toBe("invalid_signature");
    expect((await messageDetail(key, message.id)).status).toBe("sent");
  });

  it("answers 404 for an unknown integration", async () => {
    const res = await postWebhook("int_unknown", "{}");
    expect(res.status).toBe(404);
  });
});

describe("open and click tracking", () => {
  async function trackedMessage() {
    const { key } = await createSandboxEnvironment();
    await createWorkflow(key, {
      key: "tracked",
      steps: [
        {
          id: "mail",
          type: "email",
          tracking: { opens: true, clicks: true },
          template: { subject: "news", html: '<html><body><a href="https://acme.dev/a?x=1&amp;y=2">read</a></body></html>' },
        },
      ],
    });
    const transactionId = await trigger(key, { workflow: "tracked", to: { subscriberId: unique("s"), email: "t@example.com" } });
    const [message] = await settledMessages(key, transactionId, 1);
    const captures = await api<{ data: { content: { html: string } }[] }>(key, "GET", `/v1/sandbox/messages?messageId=${message!.id}`);
    const html = captures.body.data[0]!.content.html;
    const pixel = /<img src="([^"]+)"/.exec(html)![1]!;
    const click = /<a href="([^"]+)"/.exec(html)![1]!.replaceAll("&amp;", "&");
    return { key, message: message!, pixel: new URL(pixel), click: new URL(click) };
  }

  it("records opened from the pixel and clicked from a signed link that redirects to the original URL", async () => {
    const { key, message, pixel, click } = await trackedMessage();
    const open = await SELF.fetch(`http://clarion.test${pixel.pathname}`);
    expect(open.status).toBe(200);
    expect(open.headers.get("content-type")).toBe("image/gif");
    await eventually(async () => (await messageDetail(key, message.id)).status === "opened");

    const res = await SELF.fetch(`http://clarion.test${click.pathname}${click.search}`, { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("https://acme.dev/a?x=1&y=2");
    const detail = await messageDetail(key, message.id);
    expect(detail.status).toBe("clicked");
    expect(detail.events.map((e) => e.status)).toEqual(["queued", "sending", "sent", "opened", "clicked"]);
  });

  it.each([
    ["a changed target URL", (c: URL) => `${c.pathname}?u=${encodeURIComponent("https://evil.example/")}`],
    ["a changed signature", (c: URL) => `${c.pathname.slice(0, -3)}AAA${c.search}`],
    ["a changed message id", (c: URL) => `${c.pathname.replace(/msg_[0-9a-f]{4}/, "msg_0000")}${c.search}`],
  ])("answers 400 to a click link with %s", async (_name, tamper) => {
    const { key, message, click } = await trackedMessage();
    const res = await SELF.fetch(`http://clarion.test${tamper(click)}`, { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { code: string }).code).toBe("invalid_tracking_link");
    expect((await messageDetail(key, message.id)).status).toBe("sent");
  });
});
