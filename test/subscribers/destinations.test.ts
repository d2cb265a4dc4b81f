import { describe, expect, it } from "vitest";
import { createEnvironment, createWorkflow, unique } from "../factories";
import { errorPaths, expectProblem } from "../request";
import { strictApi } from "../strict-api";

const FORBIDDEN = [
  "https://2130706433/hook",
  "https://0x7f000001/hook",
  "https://127.1/hook",
  "https://0177.0.0.1/hook",
  "https://[::1]/hook",
  "https://[::ffff:127.0.0.1]/hook",
  "https://169.254.169.254/hook",
  "https://localhost/hook",
  "https://hooks.localhost/hook",
  "https://10.0.0.1/hook",
  "https://172.16.0.1/hook",
  "https://192.168.0.1/hook",
  "https://100.64.0.1/hook",
  "https://[fc00::1]/hook",
  "https://[fe80::1]/hook",
  "https://0.0.0.0/hook",
  "https://metadata.google.internal/hook",
  "http://hooks.slack.com/services/T0/B0/x",
];

const subscription = (endpoint: string) =>
  JSON.stringify({
    endpoint,
    keys: {
      p256dh: "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM",
      auth: "tBHItJI5svbpez7KI4CCXg",
    },
  });

describe("POST /sub: destination policy (opt-in off)", () => {
  it.each(FORBIDDEN)("refuses chat webhook %s", async (webhookUrl) => {
    const { key } = await createEnvironment();
    const res = await strictApi(key, "POST", "/sub", {
      subscriberId: unique("s"),
      channels: { chat: [{ provider: "slack", webhookUrl }] },
    });
    expect(errorPaths(expectProblem(res, 422, "destination_not_allowed"))).toEqual(["channels.chat.0.webhookUrl"]);
  });

  it.each(FORBIDDEN)("refuses Web Push endpoint %s", async (endpoint) => {
    const { key } = await createEnvironment();
    const res = await strictApi(key, "POST", "/sub", {
      subscriberId: unique("s"),
      channels: { push: [{ provider: "webpush", token: subscription(endpoint) }] },
    });
    expect(errorPaths(expectProblem(res, 422, "destination_not_allowed"))).toEqual(["channels.push.0.token"]);
  });

  it("accepts public https webhooks and push endpoints, and opaque push tokens", async () => {
    const { key } = await createEnvironment();
    const res = await strictApi(key, "POST", "/sub", {
      subscriberId: unique("s"),
      channels: {
        chat: [{ provider: "slack", webhookUrl: "https://hooks.slack.com/services/T0/B0/x" }],
        push: [
          { provider: "webpush", token: subscription("https://fcm.googleapis.com/fcm/send/abc") },
          { provider: "fcm", token: "fcm-registration-token" },
        ],
      },
    });
    expect(res.status).toBe(201);
  });

  it("fails only the bulk item with a forbidden webhook", async () => {
    const { key } = await createEnvironment();
    const ok = unique("s");
    const res = await strictApi<{ created: string[]; failed: { index: number; error: { code: string } }[] }>(key, "POST", "/sub/bulk", {
      subscribers: [
        { subscriberId: ok },
        { subscriberId: unique("s"), channels: { chat: [{ provider: "slack", webhookUrl: "https://127.0.0.1/hook" }] } },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.created).toEqual([ok]);
    expect(res.body.failed).toMatchObject([{ index: 1, error: { code: "destination_not_allowed" } }]);
  });
});

describe("POST /v1/trigger: inline subscribers under the destination policy (opt-in off)", () => {
  it("reports an inline subscriber with a private chat webhook as invalid, and accepts the others", async () => {
    const { key } = await createEnvironment();
    const workflow = await createWorkflow(key);
    const res = await strictApi<{ invalidRecipients?: { index: number; errors: { path: string }[] }[] }>(key, "POST", "/v1/trigger", {
      workflow: workflow.key,
      to: [
        { subscriberId: unique("s"), channels: { chat: [{ provider: "slack", webhookUrl: "https://192.168.0.10/hook" }] } },
        unique("s"),
      ],
    });
    expect(res.status).toBe(202);
    expect(res.body.invalidRecipients).toMatchObject([{ index: 0, errors: [{ path: "channels.chat.0.webhookUrl" }] }]);
  });

  it("answers 422 no_valid_recipients when the only recipient's webhook is refused", async () => {
    const { key } = await createEnvironment();
    const workflow = await createWorkflow(key);
    const res = await strictApi(key, "POST", "/v1/trigger", {
      workflow: workflow.key,
      to: { subscriberId: unique("s"), channels: { chat: [{ provider: "slack", webhookUrl: "https://localhost/hook" }] } },
    });
    expect(errorPaths(expectProblem(res, 422, "no_valid_recipients"))).toEqual(["to.0.channels.chat.0.webhookUrl"]);
  });
});
