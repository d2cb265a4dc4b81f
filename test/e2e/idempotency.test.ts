import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { idempotencyKeys } from "../../src/db/schema";
import type { TriggerAccepted } from "../../src/features/triggers/schemas";
import { countTriggerRows, createEnvironment, createIntegration, fakeProviderScenario, unique } from "../factories";
import { api } from "../request";
import { createWorkflow, settledMessages, settledTriggerRow } from "./helpers";

const resendCredentials = { apiKey: "re_test_idem", from: "Acme <hi@acme.dev>" };

describe("a trigger retried with the same Idempotency-Key", () => {
  it("is delivered once, whether the retry is replayed or runs again", async () => {
    const { id, key } = await createEnvironment();
    await createWorkflow(key, {
      key: "receipt",
      steps: [{ id: "mail", type: "email", template: { subject: "Receipt {{ payload.n }}", html: "<p>Thanks</p>" } }],
    });
    const provider = fakeProviderScenario();
    await provider.script([{ status: 200, body: { id: "re-idem-1" } }]);
    await createIntegration(id, {
      provider: "resend",
      channel: "email",
      credentials: resendCredentials,
      baseUrl: provider.baseUrl,
      primary: true,
    });

    const idempotencyKey = unique("idem");
    const body = { workflow: "receipt", to: { subscriberId: unique("s"), email: "r@example.com" }, payload: { n: 9 } };
    const send = () => api<TriggerAccepted>(key, "POST", "/v1/trigger", body, { headers: { "idempotency-key": idempotencyKey } });
    const first = await send();
    const replayed = await send();
    // A lost answer: the retry runs the handler, and the ledger recognises the transactionId made from the key.
    await createDb(env.DB)
      .delete(idempotencyKeys)
      .where(and(eq(idempotencyKeys.scope, `env:${id}`), eq(idempotencyKeys.key, idempotencyKey)));
    const rerun = await send();
    expect([first.status, replayed.status, rerun.status]).toEqual([202, 202, 202]);
    expect(new Set([first.body.transactionId, replayed.body.transactionId, rerun.body.transactionId]).size).toBe(1);

    const transactionId = first.body.transactionId;
    const [message] = await settledMessages(key, transactionId, 1, 30_000);
    expect(message).toMatchObject({ status: "sent", providerMessageId: "re-idem-1" });
    const calls = await provider.captured();
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: "POST", path: "/emails" });
    expect(calls[0]!.headers.authorization).toBe("Bearer re_test_idem");
    expect(JSON.parse(calls[0]!.body)).toEqual({
      from: "Acme <hi@acme.dev>",
      to: ["r@example.com"],
      subject: "Receipt 9",
      html: "<p>Thanks</p>",
      headers: { "List-Unsubscribe": expect.stringMatching(/^<http.*\/u\/.+>$/), "List-Unsubscribe-Post": "List-Unsubscribe=One-Click" },
    });
    expect((await settledTriggerRow(id, transactionId)).status).toBe("completed");
    expect(await countTriggerRows(id)).toBe(1);
  });
});
