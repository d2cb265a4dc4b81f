import { makeURLSearchParams, REST } from "@discordjs/rest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { discord } from "../../../src/providers/chat/discord";
import { sendWith } from "../adapter";
import { shape, startCaptureServer, type CaptureServer } from "../capture-server";

let server: CaptureServer;
beforeAll(async () => {
  server = await startCaptureServer();
});
afterAll(() => server.close());

const webhookId = "1234567890123456789";
const webhookToken = "aBcDeFgHiJkLmNoPqRsTuVwXyZ_0123456789-abcdefghijklmnopqrstuvwxyz0123";
const credentials = { username: "Clarion", avatarUrl: "https://acme.dev/bot.png" };
const content = { text: "Deploy **finished** for acme" };
const created = { id: "1100000000000000001", channel_id: "1000000000000000000", content: content.text, type: 0 };

describe("discord adapter matches the official SDK", () => {
  it("sends the same request as @discordjs/rest executing a webhook with wait=true", async () => {
    server.answer({ status: 200, body: created });
    const rest = new REST({ api: `${server.url}/api`, retries: 0 });
    await rest.post(`/webhooks/${webhookId}/${webhookToken}`, {
      auth: false,
      query: makeURLSearchParams({ wait: true }),
      body: { content: content.text, username: credentials.username, avatar_url: credentials.avatarUrl },
    });
    const expected = server.requests.at(-1)!;
    server.reset();

    // The URL as Discord hands it out (and users store it): no API version in the path.
    const url = `${server.url}/api/webhooks/${webhookId}/${webhookToken}`;
    const { outcome } = await sendWith(discord, { credentials, baseUrl: null }, { to: url, content });
    const actual = server.requests.at(-1)!;

    expect(outcome).toEqual({ ok: true, providerMessageId: created.id });
    expect(shape(actual)).toEqual(shape(expected));
    expect(actual.path).toBe(expected.path);
    expect(actual.path).toBe(`/api/v10/webhooks/${webhookId}/${webhookToken}?wait=true`);
    expect(actual.headers.authorization).toBeUndefined();
    expect(actual.headers["user-agent"]).toMatch(/^DiscordBot \(.+, .+\)$/);
    expect(JSON.parse(actual.text)).toEqual(JSON.parse(expected.text));
  });

  it("keeps the webhook URL's own query (thread_id) next to wait=true", async () => {
    server.reset();
    server.answer({ status: 200, body: created });
    await sendWith(
      discord,
      { credentials: {}, baseUrl: null },
      { to: `${server.url}/api/webhooks/${webhookId}/${webhookToken}?thread_id=42`, content },
    );
    const request = server.requests.at(-1)!;
    expect(request.path).toBe(`/api/v10/webhooks/${webhookId}/${webhookToken}?thread_id=42&wait=true`);
    expect(JSON.parse(request.text)).toEqual({ content: content.text });
  });

  it("keeps an API version the stored webhook URL already names", async () => {
    server.reset();
    server.answer({ status: 200, body: created });
    await sendWith(
      discord,
      { credentials: {}, baseUrl: null },
      { to: `${server.url}/api/v9/webhooks/${webhookId}/${webhookToken}`, content },
    );
    expect(server.requests.at(-1)!.path).toBe(`/api/v9/webhooks/${webhookId}/${webhookToken}?wait=true`);
  });

  it("versions a webhook path behind a path prefix (a proxy's)", async () => {
    server.reset();
    server.answer({ status: 200, body: created });
    await sendWith(
      discord,
      { credentials: {}, baseUrl: null },
      { to: `${server.url}/discord-proxy/api/webhooks/${webhookId}/${webhookToken}`, content },
    );
    expect(server.requests.at(-1)!.path).toBe(`/discord-proxy/api/v10/webhooks/${webhookId}/${webhookToken}?wait=true`);
  });

  it("versions the path of a webhook sent through the integration's baseUrl", async () => {
    server.reset();
    server.answer({ status: 200, body: created });
    await sendWith(
      discord,
      { credentials: {}, baseUrl: server.url },
      { to: `https://discord.com/api/webhooks/${webhookId}/${webhookToken}`, content },
    );
    expect(server.requests.at(-1)!.path).toBe(`/api/v10/webhooks/${webhookId}/${webhookToken}?wait=true`);
  });

  it.each([
    [429, {}, { message: "You are being rate limited.", retry_after: 64.57, global: true, code: 0 }, "discord_0", "retryable", 65],
    [400, {}, { message: "Cannot send an empty message", code: 50006 }, "discord_50006", "permanent", undefined],
    [
      400,
      {},
      {
        message: "Invalid Form Body",
        code: 50035,
        errors: { content: { _errors: [{ code: "BASE_TYPE_MAX_LENGTH", message: "Must be 2000 or fewer in length." }] } },
      },
      "discord_50035",
      "permanent",
      undefined,
    ],
    [403, {}, { message: "Missing Permissions", code: 50013 }, "discord_50013", "permanent", undefined],
    [401, {}, { message: "Invalid Webhook Token", code: 50027 }, "discord_50027", "invalid_recipient", undefined],
  ])("classifies HTTP %i %j as %s", async (status, headers, body, code, kind, retryAfterSeconds) => {
    server.answer({ status, headers, body });
    const { outcome } = await sendWith(
      discord,
      { credentials: {}, baseUrl: null },
      { to: `${server.url}/api/webhooks/${webhookId}/${webhookToken}`, content },
    );
    expect(outcome).toMatchObject({ ok: false, kind, code });
    expect(outcome.ok === false ? outcome.retryAfterSeconds : undefined).toBe(retryAfterSeconds);
  });
});
