import { env } from "cloudflare:test";
import { and, asc, desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { sendSettingsRows } from "../../src/db/queries/send-settings";
import { preferenceLinksRepository } from "../../src/db/queries/preference-link-settings";
import { integrations, preferenceLinkSettings, variables } from "../../src/db/schema";
import { createEnvironment, createIntegration } from "../factories";
import { api } from "../request";

const db = createDb(env.DB);

describe("the one read of what delivery sends with", () => {
  it("answers the variables, active integrations in failover order and link settings as drizzle's own reads did", async () => {
    const { id: environmentId, key } = await createEnvironment();
    await api(key, "POST", "/v1/variables", { key: "PLAIN", value: 'it\'s "quoted" Über 📦' });
    await api(key, "POST", "/v1/variables", { key: "TOKEN", value: "s3cr3t", secret: true });
    await createIntegration(environmentId, {
      provider: "sandbox-email",
      channel: "email",
      priority: 2,
      settings: { from: "a@b.c", n: 1.5 },
    });
    await createIntegration(environmentId, { provider: "sandbox-email", channel: "email", primary: true, baseUrl: "https://x.test" });
    await createIntegration(environmentId, { provider: "sandbox-sms", channel: "sms", priority: 1, tenantId: "acme" });
    await createIntegration(environmentId, { provider: "sandbox-push", channel: "push", active: false });
    const links = preferenceLinksRepository(db, environmentId, env.ENCRYPTION_KEY);
    await links.get();
    await db
      .update(preferenceLinkSettings)
      .set({ brandName: "Acme", translations: { de: { title: "Titel" } } })
      .where(eq(preferenceLinkSettings.environmentId, environmentId));

    const read = await sendSettingsRows(db, environmentId);
    expect(read.noEndpoints).not.toBeNull();
    const receiver = `https://hooks.example.com/${environmentId}`;
    expect((await api(key, "POST", "/v1/webhook-endpoints", { url: receiver, enabled: false })).status).toBe(201);
    expect((await sendSettingsRows(db, environmentId)).noEndpoints).not.toBeNull();
    expect((await api(key, "POST", "/v1/webhook-endpoints", { url: receiver })).status).toBe(201);
    expect((await sendSettingsRows(db, environmentId)).noEndpoints).toBeNull();
    const byKey = (a: { key: string }, b: { key: string }) => a.key.localeCompare(b.key);
    expect(read.variables.sort(byKey)).toEqual(
      (await db.select().from(variables).where(eq(variables.environmentId, environmentId))).sort(byKey),
    );
    expect(read.variables).toHaveLength(2);
    expect(read.integrations).toEqual(
      await db
        .select()
        .from(integrations)
        .where(and(eq(integrations.environmentId, environmentId), eq(integrations.active, true)))
        .orderBy(desc(integrations.primary), asc(integrations.priority), asc(integrations.createdAt)),
    );
    expect(read.integrations.map((i) => [i.primary, i.priority])).toEqual([
      [true, 0],
      [false, 1],
      [false, 2],
    ]);
    const [stored] = await db.select().from(preferenceLinkSettings).where(eq(preferenceLinkSettings.environmentId, environmentId));
    expect(read.links).toEqual(stored);
    expect(read.links?.translations).toEqual({ de: { title: "Titel" } });
  });

  it("answers empty lists and no link settings for an environment with none, and two first mints agree on one secret", async () => {
    const { id: environmentId } = await createEnvironment();
    expect(await sendSettingsRows(db, environmentId)).toEqual({
      variables: [],
      integrations: [],
      links: null,
      noEndpoints: { at: expect.any(Number), changes: expect.any(Number) },
    });
    const links = preferenceLinksRepository(db, environmentId, env.ENCRYPTION_KEY);
    const [a, b] = await Promise.all([links.opened(null), links.opened(null)]);
    expect(a.secret).toBe(b.secret);
    expect((await links.get()).secret).toBe(a.secret);
    expect((await sendSettingsRows(db, environmentId)).links).not.toBeNull();
  });
});
