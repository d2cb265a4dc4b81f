import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { integrations } from "../../src/db/schema";
import { toConfig } from "../../src/db/queries/integrations";
import { sendMessage } from "../../src/delivery/send/send-message";
import { LogStore } from "../../src/durable-objects/client/log-store";
import type { Integration } from "../../src/features/integrations/schemas";
import { STRICT_DESTINATIONS } from "../../src/lib/destinations";
import { eq } from "drizzle-orm";
import { createEnvironment, createIntegration, fakeProviderScenario, unique } from "../factories";
import { loggedMessages } from "../log";
import { api } from "../request";
import { createWorkflow, messageDetail, settledMessages, trigger } from "./helpers";

const SECRET = "tok_live_7Hq2Zr91Xw";
const resend = (baseUrl: string, apiKey = "re_live_9f8e7d6c5b4a3210") => ({
  provider: "resend",
  primary: true,
  settings: { maxAttempts: 1 },
  credentials: { apiKey, from: "Acme <hi@acme.dev>" },
  baseUrl,
});

async function emailWorkflow(key: string, template: Record<string, string>) {
  const workflowKey = unique("wf").toLowerCase();
  await createWorkflow(key, { key: workflowKey, steps: [{ id: "mail", type: "email", template }] });
  return workflowKey;
}

async function sendOne(key: string, workflowKey: string) {
  const transactionId = await trigger(key, {
    workflow: workflowKey,
    to: { subscriberId: unique("s"), email: "ada@example.com" },
    payload: {},
  });
  const [message] = await settledMessages(key, transactionId, 1, 30_000);
  return { transactionId, message: message! };
}

describe("secret variables in sent messages", () => {
  it("go to the provider in clear but are redacted from the stored and returned content", async () => {
    const { id: environmentId, key } = await createEnvironment();
    const scenario = fakeProviderScenario();
    expect((await api(key, "POST", "/v1/integrations", resend(scenario.baseUrl))).status).toBe(201);
    expect((await api(key, "POST", "/v1/variables", { key: "TOKEN", value: SECRET, secret: true })).status).toBe(201);
    const workflowKey = await emailWorkflow(key, {
      subject: "Code {{ vars.TOKEN }}",
      text: "Use {{ vars.TOKEN }} or {{ vars.TOKEN | upcase }} or {{ vars.TOKEN | base64_encode }}",
    });
    const { transactionId, message } = await sendOne(key, workflowKey);
    expect(message.status).toBe("sent");

    const [call] = await scenario.captured();
    expect(JSON.parse(call!.body)).toMatchObject({
      subject: `Code ${SECRET}`,
      text: `Use ${SECRET} or ${SECRET.toUpperCase()} or ${btoa(SECRET)}`,
    });

    const answers = [
      await api(key, "GET", `/v1/messages?transactionId=${transactionId}`),
      await messageDetail(key, message.id),
      await api(key, "GET", `/v1/trigger/${transactionId}`),
    ];
    const stored = (await loggedMessages(environmentId)).map(({ content, subject, preview }) => ({ content, subject, preview }));
    expect(stored).toHaveLength(1);
    for (const text of [...answers.map((a) => JSON.stringify(a)), JSON.stringify(stored)]) {
      for (const form of [SECRET, SECRET.toUpperCase(), btoa(SECRET)]) expect(text).not.toContain(form);
    }
    expect((await messageDetail(key, message.id)).content).toMatchObject({ subject: "Code [secret]" });
  });

  it("are redacted from messages stored before redaction, when answered", async () => {
    const { id: environmentId, key } = await createEnvironment();
    const scenario = fakeProviderScenario();
    expect((await api(key, "POST", "/v1/integrations", resend(scenario.baseUrl))).status).toBe(201);
    expect((await api(key, "POST", "/v1/variables", { key: "TOKEN", value: SECRET, secret: true })).status).toBe(201);
    const { transactionId, message } = await sendOne(key, await emailWorkflow(key, { subject: "Hi", text: "Hi" }));
    // As the log would hold it had it been written before redaction.
    const store = new LogStore(env);
    const batch = store.batch();
    batch.update(
      message.id,
      {
        content: { subject: `Code ${SECRET}`, text: `Use ${SECRET}` },
        subject: `Code ${SECRET}`,
        preview: `Use ${SECRET}`,
      },
      { environmentId, transactionId, subscriberId: message.subscriberId, stepId: message.stepId },
    );
    await store.write(batch);
    expect((await loggedMessages(environmentId)).map((m) => m.subject)).toEqual([`Code ${SECRET}`]);
    const answers = [
      await api(key, "GET", `/v1/messages?transactionId=${transactionId}`),
      await messageDetail(key, message.id),
      await api(key, "GET", `/v1/trigger/${transactionId}`),
    ];
    for (const answer of answers) expect(JSON.stringify(answer)).not.toContain(SECRET);
    expect((await messageDetail(key, message.id)).content).toEqual({ subject: "Code [secret]", text: "Use [secret]" });
  });
});

describe("credentials bound to their row", () => {
  it("fails the send with a recorded reason when two rows' ciphertexts are swapped, and uses neither", async () => {
    const { id: environmentId, key } = await createEnvironment();
    const victim = fakeProviderScenario();
    const attacker = fakeProviderScenario();
    const a = (await api<Integration>(key, "POST", "/v1/integrations", resend(attacker.baseUrl))).body;
    const b = (
      await api<Integration>(key, "POST", "/v1/integrations", { ...resend(victim.baseUrl, "re_live_victim_000001"), primary: false })
    ).body;
    const db = createDb(env.DB);
    const row = async (id: string) => (await db.select().from(integrations).where(eq(integrations.id, id)))[0]!;
    const [rowA, rowB] = [await row(a.id), await row(b.id)];
    await db.update(integrations).set({ credentials: rowB.credentials }).where(eq(integrations.id, a.id));
    await db.update(integrations).set({ credentials: rowA.credentials }).where(eq(integrations.id, b.id));

    const workflowKey = await emailWorkflow(key, { subject: "Hi", text: "Hi" });
    const { message } = await sendOne(key, workflowKey);
    expect(message).toMatchObject({ status: "failed", error: { code: "credentials_unreadable" } });
    expect(await attacker.captured()).toEqual([]);
    expect(await victim.captured()).toEqual([]);

    expect((await api(key, "GET", `/v1/integrations/${a.id}`)).status).toBe(200);
    const check = await api<{ ok: boolean; detail: string }>(key, "POST", `/v1/integrations/${a.id}/check`);
    expect(check.status).toBe(200);
    expect(check.body.ok).toBe(false);
    expect(environmentId).toBe(rowA.environmentId);
  });
});

describe("destination policy at send time", () => {
  it("refuses a stored baseUrl on a link-local (metadata) address, whatever the opt-in", async () => {
    const { id: environmentId, key } = await createEnvironment();
    await createIntegration(environmentId, {
      provider: "resend",
      channel: "email",
      primary: true,
      settings: { maxAttempts: 1 },
      credentials: { apiKey: "re_live_9f8e7d6c5b4a3210", from: "Acme <hi@acme.dev>" },
      baseUrl: "http://169.254.169.254/latest",
    });
    const { message } = await sendOne(key, await emailWorkflow(key, { subject: "Hi", text: "Hi" }));
    expect(message).toMatchObject({ status: "failed", error: { code: "destination_not_allowed" } });
  });

  it("refuses a stored loopback baseUrl without the opt-in, before any request", async () => {
    const { id: environmentId } = await createEnvironment();
    const scenario = fakeProviderScenario();
    const id = await createIntegration(environmentId, {
      provider: "resend",
      channel: "email",
      credentials: { apiKey: "re_live_9f8e7d6c5b4a3210", from: "Acme <hi@acme.dev>" },
      baseUrl: scenario.baseUrl,
    });
    const [row] = await createDb(env.DB).select().from(integrations).where(eq(integrations.id, id));
    const result = await sendMessage(
      await toConfig(row!, env.ENCRYPTION_KEY),
      ["ada@example.com"],
      {
        messageId: "msg_strict",
        content: { subject: "Hi", text: "Hi" },
        providerOverrides: {},
        subscriber: { subscriberId: "s", firstName: null, lastName: null },
      },
      STRICT_DESTINATIONS,
    );
    expect(result.outcome).toMatchObject({ ok: false, kind: "permanent", code: "destination_not_allowed" });
    expect(await scenario.captured()).toEqual([]);
  });

  it("does not follow a provider's redirect", async () => {
    const { key } = await createEnvironment();
    const scenario = fakeProviderScenario();
    const elsewhere = fakeProviderScenario();
    await scenario.script([{ status: 307, headers: { location: `${elsewhere.baseUrl}/emails` }, body: "" }]);
    expect((await api(key, "POST", "/v1/integrations", resend(scenario.baseUrl))).status).toBe(201);
    const { message } = await sendOne(key, await emailWorkflow(key, { subject: "Hi", text: "Hi" }));
    expect(message).toMatchObject({ status: "failed", error: { code: "http_307" } });
    expect(await elsewhere.captured()).toEqual([]);
  });

  it("keeps an HTML error page out of the message's error", async () => {
    const { key } = await createEnvironment();
    const scenario = fakeProviderScenario();
    const page = `<!DOCTYPE html><html><head><title>502</title></head><body>${"internal host 10.0.3.7 ".repeat(40)}</body></html>`;
    await scenario.script([{ status: 500, headers: { "content-type": "text/html" }, body: page }]);
    expect((await api(key, "POST", "/v1/integrations", resend(scenario.baseUrl))).status).toBe(201);
    const { message } = await sendOne(key, await emailWorkflow(key, { subject: "Hi", text: "Hi" }));
    expect(message.status).toBe("failed");
    expect(message.error!.message).not.toMatch(/<|10\.0\.3\.7/);
    expect(message.error!.message.length).toBeLessThanOrEqual(200);
    expect(message.error!.message).toContain("500");
  });
});
