import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db/client";
import { subscriberWrites, upsertSubscribers } from "../../src/db/queries/subscribers";
import { subscribersRepository } from "../../src/features/subscribers/repository";
import { createEnvironment, unique } from "../factories";

describe("subscriber upserts", () => {
  it("write a thousand profiles of one shape in two statements (their rows are one JSON parameter), not sixty", async () => {
    const db = createDb(env.DB);
    const inputs = Array.from({ length: 1_000 }, (_, i) => ({ subscriberId: `s${i}`, email: `s${i}@example.com` }));
    const { upsertCount } = subscriberWrites(db, "env_x", inputs, new Date());
    expect(upsertCount).toBe(2);
  });

  it("store every field as given, keep the fields an update leaves out, and tell created from updated", async () => {
    const db = createDb(env.DB);
    const { id: environmentId } = await createEnvironment();
    const [a, b] = [unique("a"), unique("b")];
    const first = await upsertSubscribers(db, environmentId, [
      {
        subscriberId: a,
        email: "a@example.com",
        firstName: "Ann",
        data: { plan: "pro", n: 2, tags: ["x"], nested: { ok: true } },
        locale: "de",
      },
      { subscriberId: b, phone: "+41791234567", timezone: "Europe/Zurich", data: null },
    ]);
    expect(first.outcomes).toEqual([
      { subscriberId: a, created: true },
      { subscriberId: b, created: true },
    ]);
    const later = new Date(Date.now() + 1_000);
    const second = await upsertSubscribers(db, environmentId, [{ subscriberId: a, lastName: "Smith", data: { plan: "free" } }], later);
    expect(second.outcomes).toEqual([{ subscriberId: a, created: false }]);
    const repo = subscribersRepository(db, environmentId);
    const [rowA, rowB] = await Promise.all([repo.find(a), repo.find(b)]);
    expect(rowA).toMatchObject({ email: "a@example.com", firstName: "Ann", lastName: "Smith", locale: "de", data: { plan: "free" } });
    expect(rowB).toMatchObject({ email: null, phone: "+41791234567", timezone: "Europe/Zurich", data: null });
  });
});
