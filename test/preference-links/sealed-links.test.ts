import { env, SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createEnvironment, createIntegration, createSandboxEnvironment, fakeProviderScenario, unique } from "../factories";
import { createWorkflow, messageDetail } from "../e2e/helpers";
import { createDb } from "../../src/db/client";
import { preferenceLinksRepository } from "../../src/db/queries/preference-link-settings";
import { bytesToBase64 } from "../../src/lib/base64";
import { api } from "../request";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

const MAIL = [
  {
    id: "mail",
    type: "email",
    template: { subject: "News", html: '<a href="{{ unsubscribe_url }}">U</a> <a href="{{ preferences_url }}">P</a>' },
  },
];

const get = (path: string) => SELF.fetch(`http://clarion.test${path}`);
const oneClick = (path: string) =>
  SELF.fetch(`http://clarion.test${path}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: "List-Unsubscribe=One-Click",
  });
const tokenOf = (url: string) => new URL(url).pathname.slice(3);
const preferencesOf = async (key: string, subscriberId: string) =>
  (
    await api<{ channels: Record<string, boolean>; workflows: Record<string, Record<string, boolean>> }>(
      key,
      "GET",
      `/v1/subscribers/${subscriberId}/preferences`,
    )
  ).body;

/** Every reading a log or a curious reader could make of a token: as is, URL-decoded, and each part as base64 or base64url. */
function readings(token: string): string[] {
  const out = [token, decodeURIComponent(token)];
  for (const part of token.split(/[.~]/)) {
    for (const alphabet of [part, part.replaceAll("-", "+").replaceAll("_", "/")]) {
      try {
        out.push(atob(alphabet.padEnd(Math.ceil(alphabet.length / 4) * 4, "=")));
      } catch {
        // not base64 in this alphabet
      }
    }
  }
  return out;
}

const mint = async (key: string, subscriberId: string) =>
  (await api<{ url: string; unsubscribeUrl: string }>(key, "POST", `/v1/subscribers/${subscriberId}/preference-link`)).body;

describe("link tokens", () => {
  it("do not show the subscriberId or the workflow in an email's List-Unsubscribe header and links", async () => {
    const { id, key } = await createEnvironment();
    const scenario = fakeProviderScenario();
    await scenario.script([{ status: 202, headers: { "x-message-id": "sg-1" }, body: "" }]);
    await createIntegration(id, {
      provider: "sendgrid",
      channel: "email",
      credentials: { apiKey: "SG.test.key", from: "Acme <hi@acme.dev>" },
      baseUrl: scenario.baseUrl,
      primary: true,
    });
    const workflowKey = unique("weekly-news").toLowerCase();
    await createWorkflow(key, { key: workflowKey, steps: MAIL });
    const subscriberId = unique("ada-lovelace");
    const [message] = await deliveredMessages(
      key,
      await triggerDelivered(key, { workflow: workflowKey, to: { subscriberId, email: "ada@example.com" } }),
      1,
    );
    expect(message!.status).toBe("sent");
    const [request] = await scenario.captured();
    const body = JSON.parse(request!.body) as { headers: Record<string, string> };
    const header = body.headers["List-Unsubscribe"]!;
    const html = String(((await messageDetail(key, message!.id)).content as { html: string }).html);
    const urls = [header.slice(1, -1), ...[...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!)];
    expect(urls).toHaveLength(3);
    for (const url of urls) {
      for (const reading of readings(tokenOf(url))) {
        expect(reading).not.toContain(subscriberId);
        expect(reading).not.toContain(workflowKey);
      }
    }
    // RFC 8058 still works with the sealed token.
    expect((await oneClick(new URL(header.slice(1, -1)).pathname)).status).toBe(200);
    expect((await preferencesOf(key, subscriberId)).workflows[workflowKey]).toEqual({ email: false });
  });

  it("do not show the subscriberId in a link minted by POST /v1/subscribers/{id}/preference-link", async () => {
    const { key } = await createSandboxEnvironment();
    const subscriberId = unique("grace-hopper");
    await api(key, "POST", "/sub", { subscriberId });
    const { url, unsubscribeUrl } = await mint(key, subscriberId);
    for (const reading of [...readings(tokenOf(url)), ...readings(tokenOf(unsubscribeUrl))]) expect(reading).not.toContain(subscriberId);
    expect((await get(new URL(url).pathname)).status).toBe(200);
  });

  it("are the same for the same subscriber and workflow, so each link has one spelling", async () => {
    const { key } = await createSandboxEnvironment();
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId });
    expect((await mint(key, subscriberId)).url).toBe((await mint(key, subscriberId)).url);
  });
});

describe("a link minted before an erasure", () => {
  it("answers the neutral 404 on /p and /u once the subscriberId is created again, while a new link works", async () => {
    const { key } = await createSandboxEnvironment();
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId, email: "old@example.com" });
    const old = await mint(key, subscriberId);
    expect((await get(new URL(old.url).pathname)).status).toBe(200);

    expect((await api(key, "DELETE", `/v1/subscribers/${subscriberId}`)).status).toBe(200);
    expect((await api(key, "POST", "/sub", { subscriberId, email: "new@example.com" })).status).toBe(201);

    for (const path of [new URL(old.url).pathname, new URL(old.unsubscribeUrl).pathname]) {
      const res = await get(path);
      expect(res.status, path).toBe(404);
      expect(await res.text()).toContain("Nothing to manage");
    }
    expect((await oneClick(new URL(old.unsubscribeUrl).pathname)).status).toBe(404);
    expect((await preferencesOf(key, subscriberId)).channels.email).toBe(true);

    const fresh = await mint(key, subscriberId);
    expect(fresh.url).not.toBe(old.url);
    expect((await get(new URL(fresh.url).pathname)).status).toBe(200);
  });
});

/** A token as 0.12 minted it: readable base64url of [environment, subscriberId, workflow], and a 128-bit HMAC. */
async function legacyToken(environmentId: string, subscriberId: string, workflowKey: string | null) {
  const settings = await preferenceLinksRepository(createDb(env.DB), environmentId, env.ENCRYPTION_KEY).get();
  const b64url = (bytes: Uint8Array) => bytesToBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
  const payload = b64url(new TextEncoder().encode(JSON.stringify([environmentId, subscriberId, workflowKey])));
  const key = await crypto.subtle.importKey(
    "raw",
    Uint8Array.from(atob(settings.secret), (c) => c.charCodeAt(0)),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(payload))).subarray(0, 16);
  return `${payload}.${b64url(mac)}`;
}

describe("a link in an email sent by 0.12", () => {
  it("still unsubscribes in one click, and its GET page offers no preference page", async () => {
    const { id, key } = await createEnvironment();
    const workflowKey = unique("news").toLowerCase();
    await createWorkflow(key, { key: workflowKey, name: "Product news", steps: MAIL });
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId, email: "ada@example.com" });
    const token = await legacyToken(id, subscriberId, workflowKey);

    const shown = await get(`/u/${token}`);
    expect(shown.status).toBe(200);
    const html = await shown.text();
    expect(html).toContain("Stop receiving “Product news” emails?");
    expect(html).not.toContain("/p/");

    expect((await oneClick(`/u/${token}`)).status).toBe(200);
    expect((await preferencesOf(key, subscriberId)).workflows[workflowKey]).toEqual({ email: false });
  });

  it("does not open the preference page", async () => {
    const { id, key } = await createEnvironment();
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId });
    const res = await get(`/p/${await legacyToken(id, subscriberId, null)}`);
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("Nothing to manage");
  });
});
