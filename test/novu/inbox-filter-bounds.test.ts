import { describe, expect, it } from "vitest";
import { createEnvironment, unique } from "../factories";
import { inbox, startSession } from "./inbox-client";

describe("Inbox created-at filters", () => {
  it.each([["createdGte"], ["createdLte"]])("refuses a %s past the last moment a Date holds with a 422", async (field) => {
    const { key } = await createEnvironment();
    const { token } = await startSession(key, unique("sub"));
    const filters = encodeURIComponent(JSON.stringify([{ [field]: 8_640_000_000_000_001 }]));
    const res = await inbox(token, "GET", `/notifications/count?filters=${filters}`);
    expect(res.status).toBe(422);
    const edge = encodeURIComponent(JSON.stringify([{ [field]: 8_640_000_000_000_000 }]));
    expect((await inbox(token, "GET", `/notifications/count?filters=${edge}`)).status).toBe(200);
  });
});
