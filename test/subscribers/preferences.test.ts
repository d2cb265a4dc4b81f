import { beforeAll, describe, expect, it } from "vitest";
import type { SubscriberPreferences as Stored } from "../../src/contract/preferences";
import { isChannelAllowed } from "../../src/engine/preferences";
import type { SubscriberPreferences } from "../../src/features/subscribers/preferences-schemas";
import { createEnvironment, unique } from "../factories";
import { api } from "../request";

type Problem = { code: string; errors?: { path: string; message: string }[] };

const ALL_ON = { email: true, sms: true, push: true, chat: true, in_app: true };
const path = (subscriberId: string) => `/v1/subscribers/${encodeURIComponent(subscriberId)}/preferences`;

let key: string;

beforeAll(async () => {
  ({ key } = await createEnvironment());
});

async function newSubscriber(apiKey = key) {
  const subscriberId = unique("sub");
  const res = await api(apiKey, "POST", "/sub", { subscriberId, email: "a@example.com" });
  expect(res.status).toBe(201);
  return subscriberId;
}

const expectProblem = (res: { status: number; headers: Headers; body: unknown }, status: number, code: string) => {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toContain("application/problem+json");
  expect((res.body as Problem).code).toBe(code);
};

describe("GET /v1/subscribers/{subscriberId}/preferences", () => {
  it("answers the defaults for a subscriber who never set any: every channel on, no quiet hours", async () => {
    const id = await newSubscriber();
    const res = await api<SubscriberPreferences>(key, "GET", path(id));
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ channels: ALL_ON, workflows: {}, quietHours: null, schedule: null });
  });

  it("fills the channels a subscriber left unset", async () => {
    const id = await newSubscriber();
    await api(key, "PUT", path(id), { channels: { sms: false } });
    const res = await api<SubscriberPreferences>(key, "GET", path(id));
    expect(res.body.channels).toEqual({ ...ALL_ON, sms: false });
  });

  it("answers 404 subscriber_not_found for an unknown subscriber", async () => {
    expectProblem(await api(key, "GET", path("nobody-here")), 404, "subscriber_not_found");
  });
});

describe("PUT /v1/subscribers/{subscriberId}/preferences", () => {
  it("stores what it is given and answers the result with defaults", async () => {
    const id = await newSubscriber();
    const res = await api<SubscriberPreferences>(key, "PUT", path(id), {
      channels: { email: false },
      workflows: { "order-shipped": { sms: false } },
      quietHours: { start: "22:00", end: "07:00" },
    });
    expect(res.status).toBe(200);
    const expected = {
      channels: { ...ALL_ON, email: false },
      workflows: { "order-shipped": { sms: false } },
      quietHours: { start: "22:00", end: "07:00" },
      schedule: null,
    };
    expect(res.body).toEqual(expected);
    expect((await api(key, "GET", path(id))).body).toEqual(expected);
  });

  it("keeps what a later update omits and replaces what it gives", async () => {
    const id = await newSubscriber();
    await api(key, "PUT", path(id), {
      channels: { email: false, sms: false },
      workflows: { digest: { email: true }, "order-shipped": { push: false } },
      quietHours: { start: "22:00", end: "07:00" },
    });
    const res = await api<SubscriberPreferences>(key, "PUT", path(id), {
      channels: { sms: true },
      workflows: { digest: { chat: false } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      channels: { ...ALL_ON, email: false, sms: true },
      workflows: { digest: { email: true, chat: false }, "order-shipped": { push: false } },
      quietHours: { start: "22:00", end: "07:00" },
      schedule: null,
    });
  });

  it("drops a workflow's overrides given as null and clears quiet hours given as null", async () => {
    const id = await newSubscriber();
    await api(key, "PUT", path(id), {
      workflows: { digest: { email: false }, welcome: { sms: false } },
      quietHours: { start: "22:00", end: "07:00" },
    });
    const res = await api<SubscriberPreferences>(key, "PUT", path(id), { workflows: { digest: null }, quietHours: null });
    expect(res.body.workflows).toEqual({ welcome: { sms: false } });
    expect(res.body.quietHours).toBeNull();
  });

  it("drops one workflow flag given as null and keeps the workflow's others", async () => {
    const id = await newSubscriber();
    await api(key, "PUT", path(id), { workflows: { digest: { email: false, sms: false } } });
    const res = await api<SubscriberPreferences>(key, "PUT", path(id), { workflows: { digest: { email: null, push: true } } });
    expect(res.status).toBe(200);
    expect(res.body.workflows).toEqual({ digest: { sms: false, push: true } });
    expect((await api<SubscriberPreferences>(key, "GET", path(id))).body.workflows).toEqual({ digest: { sms: false, push: true } });
  });

  it("leaves the preferences as they were for an empty update", async () => {
    const id = await newSubscriber();
    await api(key, "PUT", path(id), { channels: { chat: false } });
    const res = await api<SubscriberPreferences>(key, "PUT", path(id), {});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ channels: { ...ALL_ON, chat: false }, workflows: {}, quietHours: null, schedule: null });
  });

  it("keeps the subscriber's profile when preferences change", async () => {
    const id = await newSubscriber();
    await api(key, "PUT", path(id), { channels: { email: false } });
    const res = await api<{ email: string }>(key, "POST", "/sub", { subscriberId: id });
    expect(res.body.email).toBe("a@example.com");
    expect((await api<SubscriberPreferences>(key, "GET", path(id))).body.channels.email).toBe(false);
  });

  it("stores a delivery schedule, replaces it as a whole and removes it with null", async () => {
    const id = await newSubscriber();
    const weekdays = {
      enabled: true,
      days: {
        fri: { enabled: true, hours: [{ start: "09:00", end: "12:00" }] },
        mon: {
          enabled: true,
          hours: [
            { start: "09:00", end: "17:00" },
            { start: "20:00", end: "01:00" },
          ],
        },
      },
    };
    const first = await api<SubscriberPreferences>(key, "PUT", path(id), { schedule: weekdays });
    expect(first.status).toBe(200);
    // Stored in week order.
    expect(first.body.schedule).toEqual({ enabled: true, days: { mon: weekdays.days.mon, fri: weekdays.days.fri } });
    expect(Object.keys(first.body.schedule!.days)).toEqual(["mon", "fri"]);
    const replaced = { enabled: false, days: { sat: { enabled: true, hours: [{ start: "10:00", end: "11:00" }] } } };
    const second = await api<SubscriberPreferences>(key, "PUT", path(id), { schedule: replaced, channels: { sms: false } });
    expect(second.body.schedule).toEqual(replaced);
    expect((await api<SubscriberPreferences>(key, "GET", path(id))).body.schedule).toEqual(replaced);
    expect((await api<{ preferences: SubscriberPreferences }>(key, "GET", `/v1/subscribers/${id}`)).body.preferences.schedule).toEqual(
      replaced,
    );
    const third = await api<SubscriberPreferences>(key, "PUT", path(id), { schedule: null });
    expect(third.body).toEqual({ channels: { ...ALL_ON, sms: false }, workflows: {}, quietHours: null, schedule: null });
  });

  it("answers 404 subscriber_not_found for an unknown subscriber", async () => {
    expectProblem(await api(key, "PUT", path("nobody-here"), { channels: { email: false } }), 404, "subscriber_not_found");
  });

  it.each([
    ["an unknown channel", { channels: { fax: false } }, "channels"],
    ["a non-boolean flag", { channels: { email: "no" } }, "channels.email"],
    ["null channels", { channels: null }, "channels"],
    ["an unknown top-level field", { colour: "blue" }, "(root)"],
    ["a workflow key that is no workflow key", { workflows: { "Order Shipped": { email: false } } }, "workflows.Order Shipped"],
    ["a workflow with an unknown channel", { workflows: { digest: { fax: true } } }, "workflows.digest"],
    ["workflows as a list", { workflows: [{ email: false }] }, "workflows"],
    ["quiet hours without an end", { quietHours: { start: "22:00" } }, "quietHours.end"],
    ["quiet hours at 24:00", { quietHours: { start: "22:00", end: "24:00" } }, "quietHours.end"],
    ["quiet hours without a leading zero", { quietHours: { start: "7:00", end: "09:00" } }, "quietHours.start"],
    ["quiet hours that start when they end", { quietHours: { start: "08:00", end: "08:00" } }, "quietHours.end"],
    ["a schedule without days", { schedule: { enabled: true } }, "schedule.days"],
    ["a schedule day that is no day", { schedule: { enabled: true, days: { monday: { enabled: true, hours: [] } } } }, "schedule.days"],
    [
      "a schedule window in 12 h time",
      { schedule: { enabled: true, days: { mon: { enabled: true, hours: [{ start: "09:00 AM", end: "17:00" }] } } } },
      "schedule.days.mon.hours.0.start",
    ],
    [
      "a schedule window that ends when it starts",
      { schedule: { enabled: true, days: { mon: { enabled: true, hours: [{ start: "09:00", end: "09:00" }] } } } },
      "schedule.days.mon.hours.0.end",
    ],
    ["a list body", [], "(root)"],
  ])("rejects %s with 422", async (_name, body, errorPath) => {
    const id = await newSubscriber();
    const res = await api<Problem>(key, "PUT", path(id), body);
    expectProblem(res, 422, "validation_failed");
    expect(res.body.errors?.map((e) => e.path)).toContain(errorPath);
    expect((await api(key, "GET", path(id))).body).toEqual({ channels: ALL_ON, workflows: {}, quietHours: null, schedule: null });
  });

  it("keeps one environment's subscriber out of another's reach", async () => {
    const other = await createEnvironment();
    const id = await newSubscriber();
    expectProblem(await api(other.key, "PUT", path(id), { channels: { email: false } }), 404, "subscriber_not_found");
    expectProblem(await api(other.key, "GET", path(id)), 404, "subscriber_not_found");
    expect((await api<SubscriberPreferences>(key, "GET", path(id))).body.channels).toEqual(ALL_ON);
  });
});

describe("isChannelAllowed", () => {
  const prefs: Stored = {
    channels: { email: false, sms: true },
    workflows: { digest: { email: true, push: false }, welcome: {} },
  };

  it.each<[string, Stored | null, string, "email" | "sms" | "push" | "chat", boolean, boolean]>([
    ["no preferences at all", null, "digest", "email", false, true],
    ["empty preferences", {}, "digest", "sms", false, true],
    ["a channel left unset everywhere", prefs, "other", "chat", false, true],
    ["a global opt-out", prefs, "other", "email", false, false],
    ["a global opt-in", prefs, "other", "sms", false, true],
    ["a workflow opt-in beating a global opt-out", prefs, "digest", "email", false, true],
    ["a workflow opt-out beating an unset global", prefs, "digest", "push", false, false],
    ["a workflow without the channel set, following the global", prefs, "welcome", "email", false, false],
    ["a workflow opt-out on another workflow", prefs, "other", "push", false, true],
    ["a critical workflow despite a global opt-out", prefs, "other", "email", true, true],
    ["a critical workflow despite a workflow opt-out", prefs, "digest", "push", true, true],
    ["a workflow key named like an Object property", { channels: { email: false }, workflows: {} }, "constructor", "email", false, false],
    ["a workflow opt-out with a global opt-in", { channels: { sms: true }, workflows: { w: { sms: false } } }, "w", "sms", false, false],
  ])("%s", (_name, given, workflowKey, channel, critical, expected) => {
    expect(isChannelAllowed(given, workflowKey, channel, critical)).toBe(expected);
  });
});
