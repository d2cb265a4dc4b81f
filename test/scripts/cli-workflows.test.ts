// `clarion workflows export` → `import` against a real local Clarion (wrangler dev): the files it
// writes are accepted back as they are, into the same environment and into another one.
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../scripts/cli/main.mjs";
import { buildDashboardIfMissing } from "../../scripts/lib.mjs";
import { type LocalStack, ROOT, startLocalStack } from "../local-stack";

let stack: LocalStack;
beforeAll(async () => {
  // wrangler serves the built dashboard as assets and refuses to start without it (`npm test` builds it first).
  await buildDashboardIfMissing(ROOT);
  stack = await startLocalStack({ environments: ["development", "staging"], label: "cli workflows" });
}, 180_000);
afterAll(() => stack?.stop());

async function clarion(args: string[], env: "development" | "staging") {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    env: { CLARION_URL: stack.base, CLARION_API_KEY: stack.keys[env] },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

async function api(env: "development" | "staging", method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.base}${path}`, {
    method,
    headers: { authorization: `ApiKey ${stack.keys[env]}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const READ_ONLY = ["id", "createdAt", "updatedAt", "lastTriggeredAt"];
const withoutReadOnly = (workflow: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(workflow).filter(([k]) => !READ_ONLY.includes(k)));

const rich = {
  key: "order-shipped",
  name: "Order shipped",
  description: "Tells the customer their order left the warehouse.",
  critical: true,
  tags: ["orders"],
  payloadSchema: { type: "object", required: ["orderId"], properties: { orderId: { type: "string" } } },
  steps: [
    {
      id: "mail",
      type: "email",
      template: { subject: "Order {{ payload.orderId }} shipped", html: "<p>Hi {{ subscriber.firstName | default: 'there' }}</p>" },
      locales: { de: { subject: "Bestellung {{ payload.orderId }} versandt" } },
      tracking: { opens: true, clicks: false },
    },
    { id: "wait", type: "delay", for: "PT1H" },
    {
      id: "text",
      type: "sms",
      if: { field: "steps.mail.status", op: "ne", value: "sent" },
      template: { body: "Order {{ payload.orderId }} is on its way" },
    },
  ],
};
const simple = { key: "welcome", name: "Welcome", active: false, steps: [{ id: "hi", type: "chat", template: { text: "Welcome!" } }] };

describe("clarion workflows export, then import", () => {
  it("round-trips every workflow: into the same environment (updated) and into another (created)", async () => {
    for (const workflow of [rich, simple]) expect((await api("development", "POST", "/v1/workflows", workflow)).status).toBe(201);
    const before = await Promise.all([rich, simple].map(async (w) => (await api("development", "GET", `/v1/workflows/${w.key}`)).body));

    const dir = await mkdtemp(join(tmpdir(), "clarion-roundtrip-"));
    const exported = await clarion(["workflows", "export", "--dir", dir], "development");
    expect(exported).toMatchObject({ code: 0, err: "" });
    expect((await readdir(dir)).sort()).toEqual(["order-shipped.json", "welcome.json"]);
    const file = JSON.parse(await readFile(join(dir, "order-shipped.json"), "utf8")) as Record<string, unknown>;
    for (const field of READ_ONLY) expect(file).not.toHaveProperty(field);

    const same = await clarion(["workflows", "import", dir], "development");
    expect(same).toMatchObject({ code: 0, err: "" });
    expect(same.out).toBe(`updated order-shipped (${join(dir, "order-shipped.json")})\nupdated welcome (${join(dir, "welcome.json")})`);
    for (const workflow of before) {
      const after = (await api("development", "GET", `/v1/workflows/${workflow.key}`)).body;
      expect(withoutReadOnly(after)).toEqual(withoutReadOnly(workflow));
      expect(after.id).toBe(workflow.id);
    }

    const other = await clarion(["workflows", "import", dir], "staging");
    expect(other).toMatchObject({ code: 0, err: "" });
    expect(other.out).toContain("created order-shipped");
    for (const workflow of before) {
      const copy = (await api("staging", "GET", `/v1/workflows/${workflow.key}`)).body;
      expect(withoutReadOnly(copy)).toEqual(withoutReadOnly(workflow));
    }
  });

  it("round-trips a workflow tree: branches with their paths and default, waits, trigger_workflow and update_subscriber", async () => {
    const tree = {
      key: "escalate-tree",
      name: "Escalate",
      steps: [
        { id: "feed", type: "in_app", template: { body: "Invoice {{ payload.number }}" } },
        { id: "wait-seen", type: "wait", until: { message: { step: "feed", status: "seen" } }, timeout: "PT1H" },
        {
          id: "route",
          type: "branch",
          paths: [
            {
              id: "unseen",
              name: "Not seen",
              if: { field: "steps.wait-seen.outcome", op: "eq", value: "timed_out" },
              steps: [
                { id: "mail", type: "email", layout: null, template: { subject: "Invoice", text: "See the app" } },
                { id: "note", type: "update_subscriber", set: { data: { escalated: "{{ payload.number }}" } } },
              ],
            },
          ],
          default: { steps: [{ id: "thanks", type: "trigger_workflow", workflow: "welcome", payload: { from: "{{ payload.number }}" } }] },
        },
      ],
    };
    expect((await api("development", "POST", "/v1/workflows", tree)).status).toBe(201);
    const before = (await api("development", "GET", `/v1/workflows/${tree.key}`)).body;
    const dir = await mkdtemp(join(tmpdir(), "clarion-tree-"));
    expect(await clarion(["workflows", "export", "--dir", dir], "development")).toMatchObject({ code: 0, err: "" });
    const file = JSON.parse(await readFile(join(dir, `${tree.key}.json`), "utf8")) as Record<string, unknown>;
    expect(file.steps).toEqual(tree.steps);
    expect(await clarion(["workflows", "import", join(dir, `${tree.key}.json`)], "staging")).toMatchObject({ code: 0, err: "" });
    const copy = (await api("staging", "GET", `/v1/workflows/${tree.key}`)).body;
    expect(withoutReadOnly(copy)).toEqual(withoutReadOnly(before));
  });

  it("imports a file exported by 0.7, with the server's fields still in it", async () => {
    const dir = await mkdtemp(join(tmpdir(), "clarion-07-"));
    const old = {
      ...simple,
      key: "legacy",
      id: "wf_0",
      createdAt: "2026-11-01T00:00:00.000Z",
      updatedAt: "2026-11-01T00:00:00.000Z",
      lastTriggeredAt: null,
    };
    await writeFile(join(dir, "legacy.json"), JSON.stringify(old));
    const result = await clarion(["workflows", "import", dir], "development");
    expect(result).toMatchObject({ code: 0, err: "" });
    expect((await api("development", "GET", "/v1/workflows/legacy")).body).toMatchObject({ key: "legacy", name: "Welcome" });
  });

  it("names the refused file and prints each field error on the default output, not only with --json", async () => {
    const dir = await mkdtemp(join(tmpdir(), "clarion-bad-"));
    const broken = {
      ...simple,
      key: "broken",
      steps: [{ id: "hi", type: "chat", template: { text: "Hi {{ subscriber.firstName | shout }}" } }],
    };
    await writeFile(join(dir, "broken.json"), JSON.stringify(broken));
    const result = await clarion(["workflows", "import", dir], "development");
    expect(result.code).toBe(1);
    expect(result.err.split("\n")).toEqual([
      expect.stringMatching(new RegExp(`^clarion: ${join(dir, "broken.json")}: PUT /v1/workflows/broken: 422 validation_failed: `)),
      "  steps.0.template.text: Liquid: undefined filter: shout, line:1, col:4",
    ]);
    expect((await api("development", "GET", "/v1/workflows/broken")).status).toBe(404);
  });
});
