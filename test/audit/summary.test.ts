import { beforeAll, describe, expect, it } from "vitest";
import { createEnvironment, workflowBody } from "../factories";
import { api } from "../request";
import { auditLog } from "./helpers";

let environment: { id: string; key: string; slug: string };
beforeAll(async () => {
  environment = await createEnvironment();
});

const steps = (subject: string) => [{ id: "mail", type: "email", template: { subject, text: "Hello" } }];

describe("the audit log's summary", () => {
  it("says what changed in a workflow, as its History does", async () => {
    const body = workflowBody({ steps: steps("Shipped") });
    const path = `/v1/workflows/${body.key}`;
    expect((await api(environment.key, "POST", "/v1/workflows", body)).status).toBe(201);
    expect((await api(environment.key, "PUT", path, { ...body, steps: steps("Your order shipped") })).status).toBe(200);
    expect((await api(environment.key, "PUT", path, { ...body, name: "Renamed", steps: steps("Your order shipped") })).status).toBe(200);
    expect(
      (await api(environment.key, "PUT", path, { ...body, name: "Renamed", active: false, steps: steps("Your order shipped") })).status,
    ).toBe(200);
    expect((await api(environment.key, "DELETE", path)).status).toBe(204);

    const entries = (await auditLog(environment.key, `resource=workflow&resourceId=${body.key}`)).body.data;
    expect(entries.map((e) => [e.action, e.summary])).toEqual([
      ["deleted", "Deleted"],
      ["deactivated", "Deactivated"],
      ["updated", "name changed"],
      ["updated", 'step "mail": template.subject changed'],
      ["created", "Created"],
    ]);
  });

  it("names a step changed inside a branch path by its id, not the whole branch", async () => {
    const tree = (subject: string) => [
      { id: "route", type: "branch", paths: [{ id: "vip", if: { field: "payload.vip", op: "eq", value: true }, steps: steps(subject) }] },
    ];
    const body = workflowBody({ steps: tree("One") });
    expect((await api(environment.key, "POST", "/v1/workflows", body)).status).toBe(201);
    expect((await api(environment.key, "PUT", `/v1/workflows/${body.key}`, { ...body, steps: tree("Two") })).status).toBe(200);
    const [entry] = (await auditLog(environment.key, `resource=workflow&resourceId=${body.key}&action=updated`)).body.data;
    expect(entry?.summary).toBe('step "mail": template.subject changed');
  });

  it("matches the summary of the version each update made", async () => {
    const body = workflowBody({ steps: steps("One") });
    const path = `/v1/workflows/${body.key}`;
    expect((await api(environment.key, "POST", "/v1/workflows", body)).status).toBe(201);
    const edited = {
      ...body,
      description: "Sent on shipping",
      steps: [...steps("Two"), { id: "text", type: "sms", template: { body: "Hi" } }],
    };
    expect((await api(environment.key, "PUT", path, edited)).status).toBe(200);
    const versions = await api<{ data: { version: number; summary: string }[] }>(environment.key, "GET", `${path}/versions`);
    const [entry] = (await auditLog(environment.key, `resource=workflow&resourceId=${body.key}&action=updated`)).body.data;
    expect(entry?.summary).toBe(versions.body.data.find((v) => v.version === 2)?.summary);
    expect(entry?.summary).toBe('description changed; step "mail": template.subject changed; step "text" added');
  });

  it("names the fields of any other resource that changed, never their values", async () => {
    const key = `SUPPORT_${crypto.randomUUID().slice(0, 8).toUpperCase()}`;
    expect((await api(environment.key, "POST", "/v1/variables", { key, value: "help@old.example", secret: false })).status).toBe(201);
    expect((await api(environment.key, "PUT", `/v1/variables/${key}`, { value: "help@new.example" })).status).toBe(200);
    const entries = (await auditLog(environment.key, `resource=variable&resourceId=${key}`)).body.data;
    expect(entries.map((e) => e.summary)).toEqual(["value changed", "Created"]);
    expect(entries[0]!.summary).not.toContain("example");
  });
});
