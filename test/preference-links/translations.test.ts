import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSandboxEnvironment, unique } from "../factories";
import { createWorkflow, messageDetail } from "../e2e/helpers";
import { api, errorPaths, expectProblem } from "../request";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

const GERMAN = {
  preferencesTitle: "Benachrichtigungseinstellungen",
  save: "Einstellungen speichern",
  channelEmail: "E-Mail",
  unsubscribeTitle: "Abmelden",
  unsubscribeAllQuestion: "Keine E-Mails mehr von {brand} erhalten?",
  unsubscribeWorkflowQuestion: "Diese E-Mails von {brand} nicht mehr erhalten?",
  unsubscribedTitle: "Sie sind abgemeldet",
};

const get = (path: string) => SELF.fetch(`http://clarion.test${path}`);

/** A subscriber with `locale`, and the paths of its preference page and of its unsubscribe link for one workflow. */
async function subscriberIn(locale: string | null, translations: Record<string, Record<string, string>> = { de: GERMAN }) {
  const { key } = await createSandboxEnvironment();
  const set = await api(key, "PATCH", "/v1/preference-links/settings", { brandName: "Acme", translations });
  expect(set.status).toBe(200);
  const workflowKey = unique("news").toLowerCase();
  await createWorkflow(key, { key: workflowKey, steps: [{ id: "mail", type: "email", template: { subject: "S", text: "T" } }] });
  const subscriberId = unique("s");
  await api(key, "POST", "/sub", { subscriberId, email: "ada@example.com", ...(locale ? { locale } : {}) });
  const link = await api<{ url: string; unsubscribeUrl: string }>(key, "POST", `/v1/subscribers/${subscriberId}/preference-link`);
  return { key, page: new URL(link.body.url).pathname, unsubscribe: new URL(link.body.unsubscribeUrl).pathname };
}

describe("translations of the hosted pages", () => {
  it.each([
    ["de", "de"],
    ["de-AT", "de"],
    ["de-Latn-AT", "de"],
    ["DE", "de"],
  ])("show the preference page of a subscriber in %s in German, keys left out in English", async (locale, lang) => {
    const { page } = await subscriberIn(locale);
    const html = await (await get(page)).text();
    expect(html).toContain(`<html lang="${lang}">`);
    expect(html).toContain("<h1>Benachrichtigungseinstellungen</h1>");
    expect(html).toContain("Einstellungen speichern</button>");
    expect(html).toContain("> E-Mail</label>");
    // Not translated by this environment: stays English.
    expect(html).toContain("<legend>All notifications</legend>");
  });

  it.each([null, "fr", "en-GB", "es-DE"])("show English to a subscriber whose locale (%s) has no translation", async (locale) => {
    const { page } = await subscriberIn(locale);
    const html = await (await get(page)).text();
    expect(html).toContain('<html lang="en">');
    expect(html).toContain("<h1>Notification preferences</h1>");
  });

  it("prefer the full tag over its language", async () => {
    const { page } = await subscriberIn("pt-BR", { pt: { save: "Guardar" }, "pt-BR": { save: "Salvar" } });
    const html = await (await get(page)).text();
    expect(html).toContain('<html lang="pt-BR">');
    expect(html).toContain("Salvar</button>");
  });

  it("show the unsubscribe page and its answer in the subscriber's locale, with the brand in its placeholder", async () => {
    const { unsubscribe } = await subscriberIn("de");
    const html = await (await get(unsubscribe)).text();
    expect(html).toContain("<h1>Abmelden</h1>");
    expect(html).toContain("<p>Keine E-Mails mehr von Acme erhalten?</p>");
    const done = await SELF.fetch(`http://clarion.test${unsubscribe}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "List-Unsubscribe=One-Click",
    });
    expect(await done.text()).toContain("<h1>Sie sind abgemeldet</h1>");
  });

  it("name the workflow in a translated question through {workflow}", async () => {
    const { key } = await createSandboxEnvironment();
    const translations = { de: { unsubscribeWorkflowQuestion: "Keine „{workflow}“-E-Mails mehr von {brand}?" } };
    await api(key, "PATCH", "/v1/preference-links/settings", { brandName: "Acme", translations });
    const workflowKey = unique("news").toLowerCase();
    const steps = [{ id: "mail", type: "email", template: { subject: "S", text: "{{ unsubscribe_url }}" } }];
    await createWorkflow(key, { key: workflowKey, name: "Neuigkeiten", steps });
    const subscriberId = unique("s");
    await api(key, "POST", "/sub", { subscriberId, email: "ada@example.com", locale: "de" });
    const [message] = await deliveredMessages(key, await triggerDelivered(key, { workflow: workflowKey, to: subscriberId }), 1);
    const url = String(((await messageDetail(key, message!.id)).content as { text: string }).text).trim();
    const html = await (await get(new URL(url).pathname)).text();
    expect(html).toContain("<p>Keine „Neuigkeiten“-E-Mails mehr von Acme?</p>");
  });

  it("escape translated text as any other", async () => {
    const { page } = await subscriberIn("de", { de: { save: "<script>alert(1)</script>" } });
    const html = await (await get(page)).text();
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;script&gt;");
  });

  it("are stored by PATCH /v1/preference-links/settings, replaced as a whole, and cleared by null", async () => {
    const { key } = await createSandboxEnvironment();
    await api(key, "PATCH", "/v1/preference-links/settings", { translations: { de: GERMAN, fr: { save: "Enregistrer" } } });
    expect((await api(key, "GET", "/v1/preference-links/settings")).body.translations).toEqual({ de: GERMAN, fr: { save: "Enregistrer" } });
    await api(key, "PATCH", "/v1/preference-links/settings", { brandName: "Acme" });
    expect((await api(key, "GET", "/v1/preference-links/settings")).body.translations).toEqual({ de: GERMAN, fr: { save: "Enregistrer" } });
    await api(key, "PATCH", "/v1/preference-links/settings", { translations: { fr: { save: "Sauver" } } });
    expect((await api(key, "GET", "/v1/preference-links/settings")).body.translations).toEqual({ fr: { save: "Sauver" } });
    await api(key, "PATCH", "/v1/preference-links/settings", { translations: null });
    expect((await api(key, "GET", "/v1/preference-links/settings")).body.translations).toEqual({});
  });

  it.each([
    ["an unknown key", { de: { title: "Titel" } }, "translations.de"],
    ["an empty text", { de: { save: " " } }, "translations.de.save"],
    ["a placeholder the English text lacks", { de: { save: "Speichern {name}" } }, "translations.de.save"],
    ["a misspelt placeholder", { de: { unsubscribeAllQuestion: "Keine E-Mails von {brnd}?" } }, "translations.de.unsubscribeAllQuestion"],
    [
      "a brand in a text shown while there is none",
      { de: { unsubscribeWorkflowQuestionUnbranded: "Keine „{workflow}“-E-Mails von {brand}?" } },
      "translations.de.unsubscribeWorkflowQuestionUnbranded",
    ],
    ["a locale that is no language tag", { "german!": { save: "Speichern" } }, "translations.german!"],
    ["a locale given twice", { de: { save: "A" }, DE: { save: "B" } }, "translations"],
    ["a text that is not a string", { de: { save: 1 } }, "translations.de.save"],
  ])("refuse %s with 422", async (_name, translations, path) => {
    const { key } = await createSandboxEnvironment();
    const res = await api(key, "PATCH", "/v1/preference-links/settings", { translations });
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toContain(path);
  });
});
