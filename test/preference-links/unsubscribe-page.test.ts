import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSandboxEnvironment, unique } from "../factories";
import { createWorkflow, messageDetail } from "../e2e/helpers";
import { api } from "../request";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

const MAIL = [{ id: "mail", type: "email", template: { subject: "News", html: '<a href="{{ unsubscribe_url }}">U</a>' } }];

/** The `/u` path of one email of a workflow named "Product <news>", in a fresh environment (named after its slug). */
async function unsubscribePath(workflow: Record<string, unknown> = {}) {
  const environment = await createSandboxEnvironment();
  const workflowKey = unique("news").toLowerCase();
  await createWorkflow(environment.key, { key: workflowKey, name: "Product <news>", steps: MAIL, ...workflow });
  const subscriberId = unique("s");
  await api(environment.key, "POST", "/sub", { subscriberId, email: "ada@example.com" });
  const [message] = await deliveredMessages(
    environment.key,
    await triggerDelivered(environment.key, { workflow: workflowKey, to: subscriberId }),
    1,
  );
  const html = String(((await messageDetail(environment.key, message!.id)).content as { html: string }).html);
  return { ...environment, path: new URL(/href="([^"]+)"/.exec(html)![1]!).pathname };
}

const question = (html: string) => /<p>(Stop receiving[^<]*)<\/p>/.exec(html)?.[1];

describe("GET /u/{token}", () => {
  it("names the workflow and the brand", async () => {
    const { key, path } = await unsubscribePath();
    await api(key, "PATCH", "/v1/preference-links/settings", { brandName: "Acme" });
    const html = await (await SELF.fetch(`http://clarion.test${path}`)).text();
    expect(question(html)).toBe("Stop receiving “Product &lt;news&gt;” emails from Acme?");
    expect(html).toContain("<title>Unsubscribe · Acme</title>");
  });

  it("names the workflow, and never the environment, while no brand is set", async () => {
    const { slug, path } = await unsubscribePath();
    const html = await (await SELF.fetch(`http://clarion.test${path}`)).text();
    expect(question(html)).toBe("Stop receiving “Product &lt;news&gt;” emails?");
    expect(html).not.toContain(slug);
  });

  it("asks about all email from the brand when the workflow's one click turns off all email", async () => {
    const { key, path } = await unsubscribePath({ unsubscribe: "email" });
    await api(key, "PATCH", "/v1/preference-links/settings", { brandName: "Acme" });
    const html = await (await SELF.fetch(`http://clarion.test${path}`)).text();
    expect(question(html)).toBe("Stop receiving all email from Acme?");
  });
});
