import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Browser, Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { until } from "../local-stack";
import { awayFromWindowEdge } from "../rate-limit/window";
import { api, CHROMIUM, confirmDialog, launch, screenshot, signIn } from "./browser";

// The Webhooks page: add an endpoint with chosen event types, reveal and rotate its secret, send a
// test, read the attempts, replay failures, turn it off and on, delete it.
let browser: Browser | undefined;
let page: Page;
let receiver: Server;
let receiverUrl = "";

interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}
const received: Received[] = [];
/** What the receiver answers: 200, or 500 while `failing`. */
let failing = false;

interface Endpoint {
  id: string;
  url: string;
  events: string[] | null;
  enabled: boolean;
}

beforeAll(async () => {
  if (!CHROMIUM) return;
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk) => {
      body += chunk;
    });
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body });
      res.writeHead(failing ? 500 : 200).end(failing ? "down for maintenance" : "ok");
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  browser = await launch();
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(page, "/webhooks");
  await page.getByRole("heading", { name: "Webhooks", exact: true }).waitFor();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => receiver?.close(resolve));
});

const endpointOf = async (id: string) => (await api<Endpoint>("GET", `/v1/webhook-endpoints/${id}`)).body;
const endpointId = () => decodeURIComponent(new URL(page.url()).pathname.split("/").pop() ?? "");

describe.skipIf(!CHROMIUM)("the Webhooks page", () => {
  let id = "";

  it("states the retry schedule delivery follows (8 attempts over about 28 hours), not another", async () => {
    const intro = page.getByText("Clarion POSTs this environment's events");
    expect(await intro.textContent()).toContain("retried on failure (8 attempts over about 28 hours)");
  });

  it("adds an endpoint for the event types ticked, and opens it", async () => {
    await page.getByLabel("URL").fill(`${receiverUrl}/crm`);
    await page.getByLabel("Description (optional)").fill("CRM sync");
    await page.getByLabel("Only these:").check();
    await page.getByLabel("message.bounced").check();
    await page.getByLabel("webhook.test").check();
    await page.getByLabel("subscriber.created").check();
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByRole("heading", { name: `${receiverUrl}/crm` }).waitFor();
    id = endpointId();
    expect(id).toMatch(/^ep_/);
    expect(await endpointOf(id)).toMatchObject({
      url: `${receiverUrl}/crm`,
      enabled: true,
      // In the API's order, whatever the order they were ticked in.
      events: ["message.bounced", "subscriber.created", "webhook.test"],
    });
    await page.getByRole("link", { name: "← Webhooks" }).click();
    const row = page.locator(`tr[data-endpoint="${id}"]`);
    await row.getByText("3 event types").or(row.getByText("message.bounced, subscriber.created, webhook.test")).waitFor();
    expect(await row.getByText("CRM sync").isVisible()).toBe(true);
    await screenshot(page, "webhooks");
    await row.getByRole("link").click();
  });

  it("says why an endpoint is refused, on its field", async () => {
    await page.goto(page.url().replace(/\/webhooks\/.*$/, "/webhooks"));
    await page.getByLabel("URL").fill("http://metadata.google.internal/hook");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    await page.getByText(/Not an allowed destination/).waitFor();
    await page.locator(`tr[data-endpoint="${id}"]`).getByRole("link").click();
    await page.getByRole("heading", { name: `${receiverUrl}/crm` }).waitFor();
  });

  it("refuses credentials in the URL on its field, pointing to the signing secret, and a full environment readably", async () => {
    await page.goto(page.url().replace(/\/webhooks\/.*$/, "/webhooks"));
    await page.getByLabel("URL").fill("https://user:s3cr3t@example.com/hook");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    // On the field itself (read out with it), not as a separate problem box.
    await page
      .locator(".field-error")
      .getByText(/Credentials in the URL .* signing secret/)
      .waitFor();
    expect(await page.getByLabel("URL").getAttribute("aria-invalid")).toBe("true");
    expect(await page.locator(".problem").count()).toBe(0);

    // As many endpoints as the deployment allows (20 by default): the next one is refused in words.
    const existing = (await api<{ data: unknown[] }>("GET", "/v1/webhook-endpoints?limit=100")).body.data.length;
    const extra: string[] = [];
    for (let i = existing; i < 20; i++)
      extra.push((await api<{ id: string }>("POST", "/v1/webhook-endpoints", { url: `https://example.com/filler-${i}` })).body.id);
    await page.getByLabel("URL").fill("https://example.com/one-too-many");
    await page.getByRole("button", { name: "Add endpoint" }).click();
    const alert = page.locator('.problem[data-code="limit_reached"]');
    await alert.getByText("422 Limit reached").waitFor();
    expect(await alert.textContent()).toContain("delete one");
    for (const filler of extra) await api("DELETE", `/v1/webhook-endpoints/${filler}`);
    await page.reload();
    await page.locator(`tr[data-endpoint="${id}"]`).getByRole("link").click();
    await page.getByRole("heading", { name: `${receiverUrl}/crm` }).waitFor();
  });

  it("reveals the signing secret, and rotates it with an overlap during which both sign", async () => {
    expect(await page.getByTestId("endpoint-secret").count()).toBe(0);
    await page.getByRole("button", { name: "Reveal secret" }).click();
    const first = (await page.getByTestId("endpoint-secret").textContent()) ?? "";
    expect(first).toMatch(/^whsec_/);
    expect((await api<{ secret: string }>("GET", `/v1/webhook-endpoints/${id}/secret`)).body.secret).toBe(first);

    await page.getByRole("button", { name: "Rotate secret" }).click();
    const dialog = page.getByRole("dialog", { name: "Rotate the signing secret?" });
    await dialog.getByLabel("Overlap (hours)").fill("2");
    await confirmDialog(page);
    await page.getByTestId("previous-secret").waitFor();
    const second = (await page.getByTestId("endpoint-secret").textContent()) ?? "";
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect(await page.getByTestId("previous-secret").textContent()).toContain(first);
    const stored = (await api<{ secret: string; previousSecret: string }>("GET", `/v1/webhook-endpoints/${id}/secret`)).body;
    expect(stored).toMatchObject({ secret: second, previousSecret: first });
    await page.getByRole("button", { name: "Hide secret" }).click();
    await page.getByTestId("endpoint-secret").waitFor({ state: "detached" });
  });

  it("sends a test event, shows what the endpoint answered, and lists the attempt", async () => {
    failing = false;
    await page.getByRole("button", { name: "Send test event" }).click();
    const result = page.getByTestId("test-result");
    await result.getByText("Test delivered").waitFor();
    expect(await result.textContent()).toMatch(/HTTP 200 in \d+ ms/);
    const eventId = ((await result.locator("code").textContent()) ?? "").trim();
    expect(eventId).toMatch(/^evt_/);
    // Signed with both secrets during the overlap: each verifies on its own.
    const delivery = received.find((r) => r.headers["webhook-id"] === eventId);
    expect(delivery?.path).toBe("/crm");
    const secrets = (await api<{ secret: string; previousSecret: string }>("GET", `/v1/webhook-endpoints/${id}/secret`)).body;
    for (const secret of [secrets.secret, secrets.previousSecret]) {
      expect(new Webhook(secret).verify(delivery!.body, delivery!.headers as Record<string, string>)).toMatchObject({
        type: "webhook.test",
      });
    }
    const row = page.locator(`tr[data-event="${eventId}"]`);
    await row.waitFor();
    expect(await row.getAttribute("data-status")).toBe("succeeded");
    expect(await row.textContent()).toContain("HTTP 200");
  });

  it("shows a failed test with the endpoint's answer, and filters the attempts by status", async () => {
    failing = true;
    await page.getByRole("button", { name: "Send test event" }).click();
    const result = page.locator('[data-testid="test-result"][data-status="failed"]');
    await result.getByText("Test failed").waitFor();
    expect(await result.textContent()).toContain("HTTP 500");
    const failedEvent = ((await result.locator("code").textContent()) ?? "").trim();
    await page.locator(`tr[data-event="${failedEvent}"][data-status="failed"]`).waitFor();
    await screenshot(page, "webhooks-endpoint");

    const status = page.getByRole("combobox", { name: "Status" });
    await status.selectOption("succeeded");
    await page.locator('tr[data-status="succeeded"]').first().waitFor();
    expect(await page.locator(`tr[data-event="${failedEvent}"]`).count()).toBe(0);
    await status.selectOption("failed");
    await page.locator(`tr[data-event="${failedEvent}"]`).waitFor();
    expect(await page.locator('tr[data-status="succeeded"]').count()).toBe(0);
    await status.selectOption("");
  });

  it("replays the events whose last attempt failed, with their ids", async () => {
    const failed = received.filter((r) => r.headers["webhook-id"]).at(-1)!.headers["webhook-id"] as string;
    failing = false;
    const before = received.length;
    await page.getByRole("button", { name: "Replay failed events" }).click();
    await page
      .getByTestId("replay-result")
      .getByText(/events? queued again/)
      .waitFor();
    expect(Number.parseInt((await page.getByTestId("replay-result").textContent()) ?? "", 10)).toBeGreaterThanOrEqual(1);
    await until("the replayed event at the receiver", async () =>
      received.slice(before).find((r) => r.headers["webhook-id"] === failed) ? true : undefined,
    );
    await page.locator(`tr[data-event="${failed}"][data-status="succeeded"]`).waitFor({ timeout: 20_000 });
  });

  it("says when to try again once the endpoint's tests and replays are rate limited", async () => {
    await awayFromWindowEdge();
    // Spend what is left of this minute's 20 (the tests and the replay above counted).
    for (let i = 0; i < 25; i++) {
      const res = await api("POST", `/v1/webhook-endpoints/${id}/replay`, { since: new Date(Date.now() - 60_000).toISOString() });
      if (res.status === 429) break;
    }
    await page.getByRole("button", { name: "Replay failed events" }).click();
    const alert = page.locator('[role="alert"][data-code="rate_limited"]');
    await alert.getByText("429 Rate limited").waitFor();
    expect(await alert.textContent()).toMatch(/Try again in \d+ s\./);
  });

  it("turns the endpoint off and on", async () => {
    await page.getByRole("button", { name: "Disable" }).click();
    await page.getByTestId("endpoint-status").getByText("disabled").waitFor();
    expect((await endpointOf(id)).enabled).toBe(false);
    await page.getByRole("button", { name: "Enable" }).click();
    await page.getByTestId("endpoint-status").getByText("enabled").waitFor();
    expect((await endpointOf(id)).enabled).toBe(true);
  });

  it("lists the environment's events by type, and resends one with its id", async () => {
    const tested = received.filter((r) => r.headers["webhook-id"]).at(-1)!.headers["webhook-id"] as string;
    await page.getByRole("link", { name: "← Webhooks" }).click();
    await page.getByRole("link", { name: "Event log" }).click();
    await page.getByRole("heading", { name: "Event log" }).waitFor();
    await page.getByRole("combobox", { name: "Type" }).selectOption("webhook.test");
    const row = page.locator(`tr[data-event="${tested}"]`);
    await row.waitFor();
    expect(await page.locator("tbody tr code", { hasText: /^subscriber\./ }).count()).toBe(0);
    const before = received.length;
    await row.getByRole("button", { name: "Resend" }).click();
    await page
      .getByTestId("resend-result")
      .getByText(/queued to \d+ endpoints?/)
      .waitFor();
    await until("the resent event at the receiver", async () =>
      received.slice(before).some((r) => r.headers["webhook-id"] === tested) ? true : undefined,
    );
    await page.goBack();
    await page.goBack();
    await page.getByRole("button", { name: "Delete" }).waitFor();
  });

  it("deletes the endpoint after a confirmation", async () => {
    await page.getByRole("button", { name: "Delete" }).click();
    await page.getByRole("dialog", { name: "Delete this endpoint?" }).getByText(`${receiverUrl}/crm`).waitFor();
    await confirmDialog(page);
    await page.getByRole("heading", { name: "Webhooks", exact: true }).waitFor();
    await page.locator(`tr[data-endpoint="${id}"]`).waitFor({ state: "detached" });
    expect((await api("GET", `/v1/webhook-endpoints/${id}`)).status).toBe(404);
  });
});
