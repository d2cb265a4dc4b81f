// `clarion pull` → edit → `diff` → `push` → `pull`, and `clarion types`, against a real local Clarion.
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../scripts/cli/main.mjs";
import { buildDashboardIfMissing } from "../../scripts/lib.mjs";
import { type LocalStack, ROOT, startLocalStack } from "../local-stack";

let stack: LocalStack;
beforeAll(async () => {
  await buildDashboardIfMissing(ROOT);
  stack = await startLocalStack({ environments: ["development"], label: "cli content" });
}, 180_000);
afterAll(() => stack?.stop());

async function clarion(args: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    env: { CLARION_URL: stack.base, CLARION_KEY: stack.keys.development },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${stack.base}${path}`, {
    method,
    headers: { authorization: `ApiKey ${stack.keys.development}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (sub: string) => {
    for (const entry of await readdir(join(dir, sub), { withFileTypes: true })) {
      const rel = sub ? `${sub}/${entry.name}` : entry.name;
      if (entry.isDirectory()) await walk(rel);
      else out[rel] = await readFile(join(dir, rel), "utf8");
    }
  };
  await walk("");
  return out;
}

const schema = (required: string[], properties: Record<string, unknown>) => ({ type: "object", required, properties });

describe("clarion pull, diff, push", () => {
  it("pull → edit a .liquid file → diff shows that one field → push → pull gives the same files", async () => {
    expect((await api("POST", "/v1/layouts", { key: "frame", name: "Frame", html: "<main>{{ content }}</main>" })).status).toBe(201);
    expect((await api("PUT", "/v1/translations/en", { keys: { hi: "Hi" } })).status).toBe(200);
    const wf = {
      key: "order-shipped",
      name: "Order shipped",
      payloadSchema: schema(["orderId"], { orderId: { type: "string" } }),
      steps: [{ id: "mail", type: "email", layout: "frame", template: { subject: "Order {{ payload.orderId }}", html: "<p>Shipped</p>" } }],
    };
    expect((await api("POST", "/v1/workflows", wf)).status).toBe(201);

    const dir = await mkdtemp(join(tmpdir(), "clarion-content-"));
    expect(await clarion(["pull", dir])).toMatchObject({ code: 0, err: "" });
    const first = await snapshot(dir);
    expect(first["workflows/order-shipped/mail.subject.liquid"]).toBe("Order {{ payload.orderId }}");
    expect(first["layouts/frame/html.liquid"]).toBe("<main>{{ content }}</main>");
    expect(JSON.parse(first["translations/en.json"]!)).toEqual({ hi: "Hi" });
    expect(await clarion(["pull", dir])).toMatchObject({ code: 0 });
    expect(await snapshot(dir)).toEqual(first);
    expect(await clarion(["diff", dir])).toMatchObject({ code: 0, out: "no changes" });

    await writeFile(join(dir, "workflows/order-shipped/mail.subject.liquid"), "Your order {{ payload.orderId }}");
    const diff = await clarion(["diff", dir]);
    expect(diff.code).toBe(1);
    expect(diff.out.split("\n")).toEqual([
      "changed workflow order-shipped",
      '  {"op":"replace","path":"/steps/0/template/subject","value":"Your order {{ payload.orderId }}"}',
    ]);

    const dry = await clarion(["push", dir, "--dry-run"]);
    expect(dry.code).toBe(0);
    expect((await api("GET", "/v1/workflows/order-shipped")).body.version).toBe(1);

    const pushed = await clarion(["push", dir]);
    expect(pushed).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^changed workflow order-shipped \(version 2\)\n {2}\{"op":"replace"/),
    });
    const edited = await snapshot(dir);
    expect(await clarion(["pull", dir])).toMatchObject({ code: 0 });
    expect(await snapshot(dir)).toEqual(edited);
  });

  it("a push that fails validation changes nothing at all, and prints every error", async () => {
    const dir = await mkdtemp(join(tmpdir(), "clarion-content-"));
    expect(await clarion(["pull", dir])).toMatchObject({ code: 0 });
    await writeFile(join(dir, "workflows/order-shipped/mail.subject.liquid"), "Changed {{ payload.orderId }}");
    await writeFile(join(dir, "layouts/frame/html.liquid"), "<main>no slot</main>");
    const result = await clarion(["push", dir]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("422 validation_failed");
    expect(result.err).toContain("  layouts.0.html: ");
    expect((await api("GET", "/v1/workflows/order-shipped")).body.version).toBe(2);
    expect((await api("GET", "/v1/layouts/frame")).body.html).toBe("<main>{{ content }}</main>");
  });

  it("removes what the folder lacks only with --prune", async () => {
    expect((await api("POST", "/v1/workflows", { key: "stray", name: "Stray", steps: [] })).status).toBe(201);
    const dir = await mkdtemp(join(tmpdir(), "clarion-content-"));
    expect(await clarion(["pull", dir])).toMatchObject({ code: 0 });
    const { rm } = await import("node:fs/promises");
    await rm(join(dir, "workflows/stray"), { recursive: true });
    expect(await clarion(["push", dir])).toMatchObject({ code: 0, out: "no changes" });
    expect(await clarion(["push", dir, "--prune"])).toMatchObject({ code: 0, out: "removed workflow stray (version 2)" });
    expect((await api("GET", "/v1/workflows/stray")).status).toBe(404);
  });
});

describe("clarion types", () => {
  it("writes types that compile, and make a wrong payload a tsc error", async () => {
    for (const [key, payloadSchema] of [
      ["welcome", schema(["name"], { name: { type: "string" } })],
      ["invoice-due", schema(["amount", "currency"], { amount: { type: "number" }, currency: { enum: ["EUR", "USD"] } })],
    ] as const) {
      expect((await api("POST", "/v1/workflows", { key, name: key, payloadSchema, steps: [] })).status).toBe(201);
    }
    const dir = await mkdtemp(join(tmpdir(), "clarion-types-"));
    expect(await clarion(["types", "--out", join(dir, "clarion.d.ts")])).toMatchObject({ code: 0 });
    const tsc = (file: string) =>
      promisify(execFile)(process.execPath, [join(ROOT, "node_modules/typescript/bin/tsc"), "--strict", "--noEmit", file], {
        cwd: dir,
      }).then(
        () => "",
        (error: { stdout: string }) => error.stdout,
      );
    const good = `import type { NovuTriggerRequest, Trigger } from "./clarion";
declare const trigger: Trigger;
trigger({ workflow: "invoice-due", to: "sub_1", payload: { amount: 3, currency: "EUR" } });
trigger({ workflow: "order-shipped", to: "sub_1", payload: { orderId: "o1" } });
export const req: NovuTriggerRequest<"welcome"> = { workflowId: "welcome", to: "s", payload: { name: "Ada" } };
`;
    await writeFile(join(dir, "good.ts"), good);
    expect(await tsc("good.ts")).toBe("");
    await writeFile(
      join(dir, "bad.ts"),
      `import type { Trigger } from "./clarion";
declare const trigger: Trigger;
trigger({ workflow: "invoice-due", to: "sub_1", payload: { amount: "3", currency: "EUR" } });
`,
    );
    expect(await tsc("bad.ts")).toMatch(/bad\.ts\(3,.*error TS2322: Type 'string' is not assignable to type 'number'/);
  }, 60_000);
});
