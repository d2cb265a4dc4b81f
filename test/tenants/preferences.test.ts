// The resolution order of a step's preference, level by level, through a real trigger: critical →
// the subscriber's preference for the tenant → their own → the tenant's defaults → the workflow's.
import { describe, expect, it } from "vitest";
import { resolvePreference } from "../../src/engine/preferences";
import { api } from "../request";
import { createSandboxEnvironment, createWorkflow, unique } from "../factories";
import { messageDetail } from "../e2e/helpers";
import { deliveredMessages, triggerDelivered } from "../held-triggers";

type Prefs = { channels?: Record<string, boolean>; workflows?: Record<string, Record<string, boolean>> };

interface Row {
  name: string;
  critical?: boolean;
  tenant?: { channels?: Record<string, boolean>; workflows?: Record<string, { enabled?: boolean; channels?: Record<string, boolean> }> };
  own?: Prefs;
  inTenant?: Prefs;
  status: "sent" | "skipped";
  level: string | null;
}

const TABLE: Row[] = [
  { name: "nothing set: the workflow's default sends", status: "sent", level: null },
  { name: "the tenant's defaults turn email off", tenant: { channels: { email: false } }, status: "skipped", level: "tenant" },
  { name: "the tenant turns the workflow off", tenant: { workflows: { WF: { enabled: false } } }, status: "skipped", level: "tenant" },
  {
    name: "the subscriber's own opt-out beats the tenant's defaults",
    tenant: { workflows: { WF: { channels: { email: true } } } },
    own: { channels: { email: false } },
    status: "skipped",
    level: "subscriber",
  },
  {
    name: "the subscriber's own per-workflow flag beats the tenant's defaults",
    tenant: { channels: { email: false } },
    own: { channels: { email: false }, workflows: { WF: { email: true } } },
    status: "sent",
    level: null,
  },
  {
    name: "the subscriber's preference for the tenant turns on what the tenant turns off",
    tenant: { channels: { email: false } },
    inTenant: { channels: { email: true } },
    status: "sent",
    level: null,
  },
  { name: "the subscriber's own opt-out", own: { channels: { email: false } }, status: "skipped", level: "subscriber" },
  {
    name: "the subscriber's own per-workflow opt-out",
    own: { workflows: { WF: { email: false } } },
    status: "skipped",
    level: "subscriber",
  },
  {
    name: "the subscriber's preference for the tenant beats their own",
    own: { channels: { email: true } },
    inTenant: { channels: { email: false } },
    status: "skipped",
    level: "subscriber_tenant",
  },
  {
    name: "the subscriber's preference for the tenant turns email back on",
    own: { channels: { email: false } },
    inTenant: { workflows: { WF: { email: true } } },
    status: "sent",
    level: null,
  },
  {
    name: "a critical workflow ignores every level",
    critical: true,
    tenant: { channels: { email: false } },
    own: { channels: { email: false } },
    inTenant: { channels: { email: false } },
    status: "sent",
    level: null,
  },
];

const swap = <T>(value: T, key: string): T => JSON.parse(JSON.stringify(value ?? null).replaceAll('"WF"', JSON.stringify(key)));

describe("per-tenant preferences", () => {
  it.each(TABLE)("$name", async (row) => {
    const { key } = await createSandboxEnvironment();
    const workflow = unique("wf").toLowerCase();
    await createWorkflow(key, {
      key: workflow,
      critical: row.critical ?? false,
      steps: [{ id: "mail", type: "email", template: { subject: "s", html: "h" } }],
    });
    const tenant = unique("t");
    expect(
      (await api(key, "POST", "/v1/tenants", { id: tenant, name: "T", ...(row.tenant ? { preferences: swap(row.tenant, workflow) } : {}) }))
        .status,
    ).toBe(201);
    const subscriberId = unique("s");
    await api(key, "POST", "/v1/subscribers", { subscriberId, email: "a@example.com" });
    if (row.own) expect((await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences`, swap(row.own, workflow))).status).toBe(200);
    if (row.inTenant) {
      const res = await api(key, "PUT", `/v1/subscribers/${subscriberId}/preferences?tenant=${tenant}`, swap(row.inTenant, workflow));
      expect(res.status).toBe(200);
    }
    const tx = await triggerDelivered(key, { workflow, to: subscriberId, tenant });
    const [message] = await deliveredMessages(key, tx, 1);
    expect(message!.status).toBe(row.status);
    if (row.level) {
      const detail = await messageDetail(key, message!.id);
      const skip = detail.events.find((e) => e.status === "skipped");
      expect(skip?.detail).toMatchObject({ reason: "preference", level: row.level });
    }
  });

  it("says which level decided, without a trigger", () => {
    expect(resolvePreference({ subscriber: null }, "wf", "email", false)).toEqual({ allowed: true, level: "workflow" });
    expect(resolvePreference({ subscriber: null, tenant: { channels: { sms: false } } }, "wf", "sms", false)).toEqual({
      allowed: false,
      level: "tenant",
    });
  });

  it("refuses ?tenant= for an unknown tenant", async () => {
    const { key } = await createSandboxEnvironment();
    await api(key, "POST", "/v1/subscribers", { subscriberId: "p1" });
    const res = await api(key, "GET", "/v1/subscribers/p1/preferences?tenant=nobody");
    expect(res.status).toBe(404);
    expect((res.body as { code: string }).code).toBe("tenant_not_found");
  });
});
