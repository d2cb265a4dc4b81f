import { describe, expect, it } from "vitest";
import type { FatigueReport, Overview } from "../../src/features/analytics/schemas";
import { createEnvironment, createWorkflow, unique } from "../factories";
import { api, errorPaths, expectProblem } from "../request";

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const midnight = Date.UTC(2026, 0, 1);

describe("the range of /v1/analytics/*", () => {
  it.each(["overview", "workflows", "providers", "fatigue", "errors"])(
    "refuses more than 92 days on %s with range_too_long",
    async (name) => {
      const { key } = await createEnvironment();
      const res = await api(key, "GET", `/v1/analytics/${name}?from=${iso(midnight)}&to=${iso(midnight + 93 * DAY)}`);
      expectProblem(res, 422, "range_too_long");
      expect(errorPaths(res.body)).toEqual(["from"]);
    },
  );

  it("takes exactly 92 days, and 92 days that widen past it once aligned are too long", async () => {
    const { key } = await createEnvironment();
    expect((await api(key, "GET", `/v1/analytics/overview?from=${iso(midnight)}&to=${iso(midnight + 92 * DAY)}`)).status).toBe(200);
    const widened = await api(key, "GET", `/v1/analytics/overview?from=${iso(midnight + 1000)}&to=${iso(midnight + 92 * DAY + 1000)}`);
    expectProblem(widened, 422, "range_too_long");
  });

  it.each([
    ["a backwards range", `from=${iso(midnight + DAY)}&to=${iso(midnight)}`, ["from"]],
    ["an unknown granularity", "granularity=week", ["granularity"]],
    ["a date that is not ISO 8601", "from=yesterday", ["from"]],
    ["an unknown channel", "channel=fax", ["channel"]],
  ])("refuses %s with validation_failed", async (_name, query, paths) => {
    const { key } = await createEnvironment();
    const res = await api(key, "GET", `/v1/analytics/overview?${query}`);
    expectProblem(res, 422, "validation_failed");
    expect(errorPaths(res.body)).toEqual(paths);
  });

  it("defaults to the last 7 days in UTC days, aligned outwards, with a bucket per day", async () => {
    const { key } = await createEnvironment();
    const res = await api<Overview>(key, "GET", "/v1/analytics/overview");
    expect(res.status).toBe(200);
    const { from, to, granularity } = res.body.range;
    expect(granularity).toBe("day");
    expect(Date.parse(from) % DAY).toBe(0);
    expect(Date.parse(to) % DAY).toBe(0);
    expect(res.body.data).toHaveLength((Date.parse(to) - Date.parse(from)) / DAY);
    expect(Date.parse(res.body.previous.to)).toBe(Date.parse(from));
  });

  it("answers only to an environment's key", async () => {
    expectProblem(await api(null, "GET", "/v1/analytics/overview"), 401, "unauthorized");
  });
});

describe("opt-outs in the analytics", () => {
  const overview = async (key: string, query = "") =>
    (await api<Overview>(key, "GET", `/v1/analytics/overview?from=${iso(Date.now() - DAY)}&to=${iso(Date.now() + DAY)}${query}`)).body;

  it("count each channel turned off once, per workflow or for all, and outlive the subscriber", async () => {
    const { key } = await createEnvironment();
    await createWorkflow(key, { key: "digest", steps: [{ id: "mail", type: "email", template: { subject: "s", text: "t" } }] });
    const subscriberId = unique("opt");
    expect((await api(key, "POST", "/v1/subscribers", { subscriberId, email: "o@example.com" })).status).toBeLessThan(300);
    const prefs = (body: unknown) => api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, body);

    expect((await prefs({ channels: { sms: false } })).status).toBe(200);
    // The same flag again changes nothing; turning one on is no opt-out.
    await prefs({ channels: { sms: false } });
    await prefs({ channels: { push: true } });
    await prefs({ workflows: { digest: { email: false } } });
    expect((await overview(key)).current.totals.optOuts).toBe(2);
    expect((await overview(key, "&channel=email")).current.totals.optOuts).toBe(1);
    // A workflow's figure has its own opt-outs and the global ones (which turned its channels off too).
    expect((await overview(key, "&workflow=digest")).current.totals.optOuts).toBe(2);
    expect((await overview(key, "&workflow=other")).current.totals.optOuts).toBe(1);
    expect((await overview(key, "&tenant=acme")).current.totals.optOuts).toBeNull();

    const fatigue = await api<FatigueReport>(key, "GET", `/v1/analytics/fatigue?from=${iso(Date.now() - DAY)}&to=${iso(Date.now() + DAY)}`);
    expect(fatigue.body.optOutsAfterVolume).toContainEqual({ min: 0, max: 0, optOuts: 2 });

    expect((await api(key, "DELETE", `/v1/subscribers/${subscriberId}`)).status).toBe(200);
    expect((await overview(key)).current.totals.optOuts).toBe(2);
  });
});
