import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { issueSessionToken } from "../../src/novu/inbox/session-token";
import { createEnvironment, unique } from "../factories";
import { api } from "../request";
import { inbox, startSession } from "./inbox-client";

/** A session token issued a minute ago, to a subscriber created and in settings last changed before it (iat counts seconds). */
async function minuteOldToken(environmentId: string, subscriberId: string): Promise<string> {
  const now = Date.now();
  await env.DB.batch([
    env.DB.prepare("UPDATE in_app_settings SET updated_at = ? WHERE environment_id = ?").bind(now - 120_000, environmentId),
    env.DB.prepare("UPDATE subscribers SET created_at = ? WHERE environment_id = ? AND subscriber_id = ?").bind(
      now - 120_000,
      environmentId,
      subscriberId,
    ),
  ]);
  return issueSessionToken(env.ENCRYPTION_KEY, { environmentId, subscriberId }, new Date(now - 60_000));
}

describe("Inbox session tokens end with the settings they were issued under", () => {
  it.each([
    ["a secret rotation", (key: string) => api(key, "POST", "/v1/in-app/settings/rotate-secret")],
    [
      "hmacRequired turned on",
      async (key: string) => {
        await api(key, "PATCH", "/v1/in-app/settings", { hmacRequired: false });
        return api(key, "PATCH", "/v1/in-app/settings", { hmacRequired: true });
      },
    ],
  ])("refuses a token issued before %s", async (_, change) => {
    const { id, key } = await createEnvironment();
    const subscriberId = unique("sub");
    await startSession(key, subscriberId);
    const token = await minuteOldToken(id, subscriberId);
    expect((await inbox(token, "GET", "/notifications")).status).toBe(200);
    expect((await change(key)).status).toBeLessThan(300);
    expect((await inbox(token, "GET", "/notifications")).status).toBe(401);
    expect((await inbox((await startSession(key, subscriberId)).token, "GET", "/notifications")).status).toBe(200);
  });

  it.each([
    ["changes nothing", { hmacRequired: true }],
    ["changes only sessionProfileWrites", { sessionProfileWrites: "always" }],
  ])("keeps every token through a PATCH that %s", async (_, body) => {
    const { id, key } = await createEnvironment();
    const subscriberId = unique("sub");
    await startSession(key, subscriberId);
    const token = await minuteOldToken(id, subscriberId);
    expect((await api(key, "PATCH", "/v1/in-app/settings", body)).status).toBe(200);
    expect((await inbox(token, "GET", "/notifications")).status).toBe(200);
  });

  it("refuses the token of an erased subscriber", async () => {
    const { key } = await createEnvironment();
    const subscriberId = unique("sub");
    const { token } = await startSession(key, subscriberId);
    expect((await inbox(token, "GET", "/notifications")).status).toBe(200);
    expect((await api(key, "DELETE", `/v1/subscribers/${subscriberId}`)).status).toBeLessThan(300);
    expect((await inbox(token, "GET", "/notifications")).status).toBe(401);
  });

  it("refuses a token issued before its subscriber was erased, once the subscriberId is created again", async () => {
    const { id, key } = await createEnvironment();
    const subscriberId = unique("sub");
    await startSession(key, subscriberId);
    const token = await minuteOldToken(id, subscriberId);
    expect((await inbox(token, "GET", "/notifications")).status).toBe(200);
    expect((await api(key, "DELETE", `/v1/subscribers/${subscriberId}`)).status).toBeLessThan(300);
    expect((await api(key, "POST", "/sub", { subscriberId })).status).toBeLessThan(300);
    expect((await inbox(token, "GET", "/notifications")).status).toBe(401);
    expect((await inbox(token, "GET", "/preferences")).status).toBe(401);
    // The new person's own session works.
    expect((await inbox((await startSession(key, subscriberId)).token, "GET", "/notifications")).status).toBe(200);
  });
});
