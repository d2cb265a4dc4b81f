// Per-tenant sending's failover: the tenant's integration fails its one attempt and the retry, a
// later Queue delivery, goes through the environment's. End to end through the real Queue (its
// retry waits for the backoff), so it settles by polling like the other e2e failover tests.
import { describe, expect, it } from "vitest";
import { unique } from "../factories";
import { acmeIntegration, setUp } from "../tenants/sending-fixtures";
import { settledMessages, trigger } from "./helpers";

const send = (key: string, tenant?: string) =>
  trigger(key, { workflow: "receipt", to: { subscriberId: unique("s"), email: "u@example.com" }, ...(tenant ? { tenant } : {}) });

describe("a message for a tenant", () => {
  it("fails over to the environment's integrations once the tenant's have had their attempts", async () => {
    const { id, key, platform, platformId, acme } = await setUp();
    await acme.script([{ status: 503, body: "unavailable" }]);
    await platform.script([{ status: 200, body: { id: "re-platform-1" } }]);
    await acmeIntegration(id, acme.baseUrl, { maxAttempts: 1 });

    const [message] = await settledMessages(key, await send(key, "acme"), 1, 30_000);
    expect(message).toMatchObject({ status: "sent", providerMessageId: "re-platform-1", integrationId: platformId, attempts: 2 });
    expect(await acme.captured()).toHaveLength(1);
    expect(await platform.captured()).toHaveLength(1);
  });
});
