// The CLI against a fake Clarion: each command must send the documented request and print the answer.
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { main } from "../../scripts/cli/main.mjs";

interface Seen {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
  /** The `Clarion-Import` header, when sent. */
  import?: string;
}

const ADMIN = "clarion_admin_cliTest";
const KEY = "ck_dev_cliTest";
const seen: Seen[] = [];
/** Scripted answers by "METHOD path"; anything else is a 404 problem. */
let answers: Record<string, { status: number; body?: unknown }> = {};
let server: Server;
let url: string;

const readBody = async (req: IncomingMessage) => {
  let text = "";
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : undefined;
};

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const body = await readBody(req);
    const imported = req.headers["clarion-import"];
    seen.push({
      method: req.method!,
      path: req.url!,
      authorization: req.headers.authorization,
      body,
      ...(typeof imported === "string" ? { import: imported } : {}),
    });
    const answer = answers[`${req.method} ${req.url}`] ?? {
      status: 404,
      body: { status: 404, code: "workflow_not_found", detail: "No such thing." },
    };
    res.writeHead(answer.status, { "content-type": answer.status < 300 ? "application/json" : "application/problem+json" });
    res.end(answer.body === undefined ? "" : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  seen.length = 0;
  answers = {};
});

async function run(args: string[], env: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, {
    env: { CLARION_URL: url, CLARION_ADMIN_KEY: ADMIN, CLARION_API_KEY: KEY, ...env },
    out: (line) => out.push(line),
    err: (line) => err.push(line),
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

const apiKey = {
  id: "key_1",
  environment: "staging",
  name: "ci",
  prefix: "ck_staging_a",
  status: "active",
  createdAt: "2026-11-23T21:00:00.000Z",
  lastUsedAt: null,
  expiresAt: null,
  revokedAt: null,
};

describe("clarion envs", () => {
  it("creates an environment with the admin credential", async () => {
    answers["POST /v1/admin/environments"] = {
      status: 201,
      body: { id: "env_1", slug: "staging", name: "Staging", createdAt: "2026-11-23T21:00:00.000Z" },
    };
    const result = await run(["envs", "create", "staging", "--name", "Staging"]);
    expect(result.code).toBe(0);
    expect(seen).toEqual([
      { method: "POST", path: "/v1/admin/environments", authorization: `ApiKey ${ADMIN}`, body: { slug: "staging", name: "Staging" } },
    ]);
    expect(result.out).toContain("created environment staging");
  });

  it("lists every page of environments", async () => {
    const env = (slug: string) => ({ id: `env_${slug}`, slug, name: slug, createdAt: "2026-11-23T21:00:00.000Z" });
    answers["GET /v1/admin/environments?limit=100"] = { status: 200, body: { data: [env("a")], nextCursor: "a" } };
    answers["GET /v1/admin/environments?limit=100&cursor=a"] = { status: 200, body: { data: [env("b")], nextCursor: null } };
    const result = await run(["envs", "list"]);
    expect(result.code).toBe(0);
    expect(result.out.split("\n").map((l) => l.split(/\s+/)[0])).toEqual(["SLUG", "a", "b"]);
  });

  it("takes --url and --admin-key over the environment variables", async () => {
    answers["GET /v1/admin/environments?limit=100"] = { status: 200, body: { data: [], nextCursor: null } };
    const result = await run(["envs", "list", "--url", url, "--admin-key", "clarion_admin_flag"], {
      CLARION_URL: "http://127.0.0.1:1",
      CLARION_ADMIN_KEY: "x",
    });
    expect(result.code).toBe(0);
    expect(seen[0]!.authorization).toBe("ApiKey clarion_admin_flag");
  });

  it("says what is missing without an admin credential, and sends nothing", async () => {
    const result = await run(["envs", "list"], { CLARION_ADMIN_KEY: "" });
    expect(result.code).toBe(2);
    expect(result.err).toContain("CLARION_ADMIN_KEY");
    expect(seen).toEqual([]);
  });

  it("prints the server's problem and exits 1", async () => {
    answers["POST /v1/admin/environments"] = {
      status: 409,
      body: { status: 409, code: "environment_exists", detail: 'An environment with slug "staging" already exists.' },
    };
    const result = await run(["envs", "create", "staging"]);
    expect(result.code).toBe(1);
    expect(result.err).toContain("409 environment_exists");
  });
});

describe("clarion keys", () => {
  it("creates a key and prints it", async () => {
    answers["POST /v1/admin/environments/staging/keys"] = { status: 201, body: { ...apiKey, key: "ck_staging_secret" } };
    const result = await run(["keys", "create", "--env", "staging", "--name", "ci"]);
    expect(seen[0]!.body).toEqual({ name: "ci" });
    expect(result.out).toContain("ck_staging_secret");
  });

  it("lists keys with revoked ones on --all", async () => {
    answers["GET /v1/admin/environments/staging/keys?includeRevoked=true&limit=100"] = {
      status: 200,
      body: { data: [apiKey], nextCursor: null },
    };
    const result = await run(["keys", "list", "--env", "staging", "--all"]);
    expect(result.code).toBe(0);
    expect(result.out).toMatch(/key_1\s+ck_staging_a\s+ci\s+api\s+active/);
  });

  it("creates an MCP key with its scopes", async () => {
    answers["POST /v1/admin/environments/staging/keys"] = {
      status: 201,
      body: { ...apiKey, kind: "mcp", scopes: ["read", "propose"], key: "ck_staging_mcp" },
    };
    const result = await run(["keys", "create", "--env", "staging", "--name", "agent", "--kind", "mcp", "--scopes", "read, propose"]);
    expect(seen[0]!.body).toEqual({ name: "agent", kind: "mcp", scopes: ["read", "propose"] });
    expect(result.out).toContain("ck_staging_mcp");
  });

  it("lists an MCP key with its scopes", async () => {
    answers["GET /v1/admin/environments/staging/keys?limit=100"] = {
      status: 200,
      body: { data: [{ ...apiKey, name: "agent", kind: "mcp", scopes: ["read", "trigger"] }], nextCursor: null },
    };
    const result = await run(["keys", "list", "--env", "staging"]);
    expect(result.out).toMatch(/agent\s+mcp:read,trigger\s+active/);
  });

  it("revokes a key", async () => {
    answers["POST /v1/admin/keys/key_1/revoke"] = { status: 200, body: { ...apiKey, status: "revoked" } };
    const result = await run(["keys", "revoke", "key_1"]);
    expect(result.code).toBe(0);
    expect(seen[0]).toEqual(expect.objectContaining({ method: "POST", path: "/v1/admin/keys/key_1/revoke" }));
  });

  it("rotates a key with the overlap asked for", async () => {
    answers["POST /v1/admin/keys/key_1/rotate"] = {
      status: 201,
      body: {
        key: { ...apiKey, id: "key_2", key: "ck_staging_new" },
        previous: { ...apiKey, status: "expiring", expiresAt: "2026-11-24T03:00:00.000Z" },
      },
    };
    const result = await run(["keys", "rotate", "key_1", "--overlap-hours", "6"]);
    expect(seen[0]!.body).toEqual({ overlapHours: 6 });
    expect(result.out).toContain("ck_staging_new");
    expect(result.out).toContain("works until 2026-11-24T03:00:00.000Z");
  });

  it.each([
    [["keys", "list"], "--env"],
    [["keys", "revoke"], "key id"],
    [["keys", "rotate", "key_1", "--overlap-hours", "soon"], "--overlap-hours"],
    [["keys", "create", "--env", "x", "--bogus"], "bogus"],
    [["keys", "frobnicate"], "Unknown command"],
  ])("refuses %j with usage (exit 2) naming %s", async (args, text) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.err).toContain(text);
    expect(seen).toEqual([]);
  });
});

describe("clarion workflows", () => {
  const workflow = {
    id: "wf_1",
    key: "welcome",
    name: "Welcome",
    description: null,
    active: true,
    critical: false,
    tags: [],
    payloadSchema: null,
    steps: [],
    createdAt: "x",
    updatedAt: "y",
  };

  it("exports one file per workflow without the server's fields, with the environment key", async () => {
    answers["GET /v1/workflows?limit=100"] = { status: 200, body: { data: [workflow], nextCursor: null } };
    const dir = await mkdtemp(join(tmpdir(), "clarion-export-"));
    const result = await run(["workflows", "export", "--dir", dir]);
    expect(result.code).toBe(0);
    expect(seen[0]!.authorization).toBe(`ApiKey ${KEY}`);
    expect(await readdir(dir)).toEqual(["welcome.json"]);
    const { id: _id, createdAt: _c, updatedAt: _u, ...file } = workflow;
    expect(JSON.parse(await readFile(join(dir, "welcome.json"), "utf8"))).toEqual(file);
  });

  it("imports by key: replaces a workflow that exists, creates one that does not", async () => {
    const dir = await mkdtemp(join(tmpdir(), "clarion-import-"));
    await writeFile(join(dir, "a.json"), JSON.stringify({ key: "exists", name: "A", steps: [] }));
    await writeFile(join(dir, "b.json"), JSON.stringify({ ...workflow, key: "fresh" }));
    answers["PUT /v1/workflows/exists"] = { status: 200, body: { ...workflow, key: "exists" } };
    answers["POST /v1/workflows"] = { status: 201, body: { ...workflow, key: "fresh" } };
    const result = await run(["workflows", "import", dir]);
    expect(result.code).toBe(0);
    expect(seen.map((s) => `${s.method} ${s.path}`)).toEqual(["PUT /v1/workflows/exists", "PUT /v1/workflows/fresh", "POST /v1/workflows"]);
    // The server's own fields never go back: PUT takes only what a workflow input holds.
    expect(seen[2]!.body).not.toHaveProperty("id");
    // So the audit log records an import, not a hand edit.
    expect(seen.map((s) => s.import)).toEqual(["true", "true", "true"]);
    expect(result.out).toBe(`updated exists (${join(dir, "a.json")})\ncreated fresh (${join(dir, "b.json")})`);
  });

  it("prints each field error of a refused import under the problem line, naming the file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "clarion-refused-"));
    await writeFile(join(dir, "a.json"), JSON.stringify({ key: "a", name: "A", steps: [] }));
    answers["PUT /v1/workflows/a"] = {
      status: 422,
      body: {
        status: 422,
        code: "validation_failed",
        detail: "The request does not match the expected schema.",
        errors: [
          { path: "steps.0.template.subject", message: "Liquid: undefined filter: shout, line:1, col:1" },
          { path: "name", message: "Too long." },
        ],
      },
    };
    const result = await run(["workflows", "import", dir]);
    expect(result.code).toBe(1);
    expect(result.err).toBe(
      [
        `clarion: ${join(dir, "a.json")}: PUT /v1/workflows/a: 422 validation_failed: The request does not match the expected schema.`,
        "  steps.0.template.subject: Liquid: undefined filter: shout, line:1, col:1",
        "  name: Too long.",
      ].join("\n"),
    );
  });

  it("takes the environment key from CLARION_KEY, the variable the docs' examples set, over CLARION_API_KEY", async () => {
    answers["GET /v1/workflows?limit=100"] = { status: 200, body: { data: [], nextCursor: null } };
    const dir = await mkdtemp(join(tmpdir(), "clarion-export-"));
    const result = await run(["workflows", "export", "--dir", dir], { CLARION_KEY: "ck_dev_fromDocs" });
    expect(result.code).toBe(0);
    expect(seen[0]!.authorization).toBe("ApiKey ck_dev_fromDocs");
  });

  it("refuses to work on workflows without an environment key", async () => {
    const result = await run(["workflows", "export"], { CLARION_API_KEY: "" });
    expect(result.code).toBe(2);
    expect(result.err).toContain("CLARION_KEY");
  });
});

describe("clarion promote", () => {
  const result = (dryRun: boolean) => ({
    from: "development",
    to: "production",
    dryRun,
    workflows: [
      { key: "order-shipped", outcome: "updated", version: 4, patch: [] },
      { key: "welcome", outcome: "created", version: 1, patch: [] },
      { key: "digest", outcome: "unchanged", version: 2, patch: [] },
    ],
    needsValue: ["STRIPE_KEY"],
  });

  it("previews with --dry-run: the workflows named, with the admin credential", async () => {
    answers = { "POST /v1/admin/promotions": { status: 200, body: result(true) } };
    const out = await run([
      "promote",
      "--from",
      "development",
      "--to",
      "production",
      "--workflow",
      "order-shipped",
      "--workflow",
      "welcome",
      "--dry-run",
    ]);
    expect(out.code).toBe(0);
    expect(seen).toEqual([
      {
        method: "POST",
        path: "/v1/admin/promotions",
        authorization: `ApiKey ${ADMIN}`,
        body: { from: "development", to: "production", workflows: ["order-shipped", "welcome"], dryRun: true },
      },
    ]);
    expect(out.out.split("\n")).toEqual([
      "dry run: promoting from development to production would",
      "  update order-shipped (version 4)",
      "  create welcome (version 1)",
      "  leave digest as it is",
      "secret variables production lacks (never copied: set them there by hand): STRIPE_KEY",
    ]);
  });

  it("promotes every workflow when none is named, and prints what it did", async () => {
    answers = { "POST /v1/admin/promotions": { status: 200, body: result(false) } };
    const out = await run(["promote", "--from", "development", "--to", "production"]);
    expect(out.code).toBe(0);
    expect(seen[0]?.body).toEqual({ from: "development", to: "production", workflows: "all", dryRun: false });
    expect(out.out).toContain(
      "promoted from development to production:\n  updated order-shipped (version 4)\n  created welcome (version 1)\n  unchanged digest",
    );
  });

  it("needs both environments, and sends nothing without them", async () => {
    const out = await run(["promote", "--from", "development"]);
    expect(out.code).toBe(2);
    expect(out.err).toContain("--to");
    expect(seen).toEqual([]);
  });

  it("prints the server's problem and exits 1", async () => {
    answers = {
      "POST /v1/admin/promotions": {
        status: 404,
        body: { status: 404, code: "environment_not_found", detail: 'No environment with slug "prod".' },
      },
    };
    const out = await run(["promote", "--from", "development", "--to", "prod"]);
    expect(out.code).toBe(1);
    expect(out.err).toContain("environment_not_found");
  });
});
