import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import type { McpScope } from "../../src/contract/api-keys";
import type { AuditEntry } from "../../src/features/audit/schemas";
import type { Proposal } from "../../src/features/proposals/schemas";
import type { Workflow } from "../../src/features/workflows/schemas";
import { adminEnvironment } from "../admin/helpers";
import { createIntegration, createWorkflow, unique } from "../factories";
import { postDelivered } from "../held-triggers";
import { readTrigger } from "../ledger";
import { ADMIN_KEY, api, expectProblem } from "../request";
import { mcpClient, mcpKey, rawMcp } from "./helpers";

const READ = [
  "list_workflows",
  "get_workflow",
  "list_subscribers",
  "get_subscriber",
  "list_messages",
  "get_trigger",
  "explain_message",
  "get_analytics",
  "search_docs",
];
const TOOLS: Record<McpScope, string[]> = {
  read: READ,
  trigger: ["trigger_workflow", "cancel_trigger"],
  propose: ["propose_change"],
  manage: ["apply_proposal", "promote"],
};

/** An environment with a workflow and a subscriber with no email address, and one API key. */
async function environmentWithContent() {
  const { environment, key } = await adminEnvironment();
  const workflow = await createWorkflow(key.key, { payloadSchema: { type: "object", properties: { orderId: { type: "string" } } } });
  await api(key.key, "POST", "/v1/subscribers", { subscriberId: "ada", firstName: "Ada", email: "ada@example.com" });
  await api(key.key, "POST", "/v1/subscribers", { subscriberId: "nomail", firstName: "No" });
  return { environment, apiKey: key.key, workflow };
}

type Structured = Record<string, unknown>;

async function call(client: Awaited<ReturnType<typeof mcpClient>>, name: string, args: Record<string, unknown>) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  return result.structuredContent as Structured;
}

const auditOf = async (apiKey: string) =>
  (await api<{ data: AuditEntry[] }>(apiKey, "GET", "/v1/audit-log?resource=mcp_tool&limit=100")).body.data;

describe("tools/list", () => {
  it("lists every tool, each with a JSON Schema input and output, for an environment's API key", async () => {
    const { apiKey } = await environmentWithContent();
    const client = await mcpClient(apiKey);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(Object.values(TOOLS).flat().sort());
    for (const tool of tools) {
      expect(tool.inputSchema.type).toBe("object");
      expect(tool.outputSchema?.type).toBe("object");
      expect(tool.description).toBeTruthy();
    }
    await client.close();
  });

  it.each(Object.keys(TOOLS) as McpScope[])("lists only the %s tools for an MCP key with that scope", async (scope) => {
    const { environment } = await environmentWithContent();
    const client = await mcpClient((await mcpKey(environment.slug, [scope])).key);
    expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual([...TOOLS[scope]].sort());
    await client.close();
  });
});

describe("tools/call outside the key's scopes", () => {
  it("is a protocol error, audited, and runs nothing", async () => {
    const { environment, apiKey, workflow } = await environmentWithContent();
    const client = await mcpClient((await mcpKey(environment.slug, ["read"], "reader")).key);
    const refused = client.callTool({
      name: "trigger_workflow",
      arguments: { workflow: workflow.key, to: "ada", transactionId: "out-of-scope" },
    });
    await expect(refused).rejects.toBeInstanceOf(McpError);
    await expect(refused).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('needs the "trigger" scope') });
    expect(await readTrigger(environment.id, "out-of-scope")).toBeNull();
    const [entry] = await auditOf(apiKey);
    expect(entry).toEqual(
      expect.objectContaining({ resourceId: "trigger_workflow", action: "called", actor: expect.objectContaining({ name: "mcp:reader" }) }),
    );
    expect(entry?.after).toEqual(expect.objectContaining({ outcome: "refused" }));
    await client.close();
  });

  it("an unknown tool is a protocol error", async () => {
    const { apiKey } = await environmentWithContent();
    const client = await mcpClient(apiKey);
    await expect(client.callTool({ name: "drop_database", arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining("Unknown tool"),
    });
    await client.close();
  });
});

describe("the read tools", () => {
  it("answer what the API answers, each call in the audit log as mcp:<key name>", async () => {
    const { environment, apiKey, workflow } = await environmentWithContent();
    const sent = await postDelivered(apiKey, "/v1/trigger", { workflow: workflow.key, to: ["ada", "nomail"], payload: { orderId: "A-1" } });
    const transactionId = (sent.body as { transactionId: string }).transactionId;
    const client = await mcpClient((await mcpKey(environment.slug, ["read"], "support-bot")).key);

    const workflows = await call(client, "list_workflows", { active: true });
    expect((workflows.data as Workflow[]).map((w) => w.key)).toEqual([workflow.key]);
    expect(await call(client, "get_workflow", { key: workflow.key })).toEqual(expect.objectContaining({ key: workflow.key, version: 1 }));
    const subscribers = await call(client, "list_subscribers", { q: "ada" });
    expect((subscribers.data as { subscriberId: string }[]).map((s) => s.subscriberId)).toEqual(["ada"]);
    expect(await call(client, "get_subscriber", { subscriberId: "ada" })).toEqual(expect.objectContaining({ email: "ada@example.com" }));

    const messages = (await call(client, "list_messages", { transactionId })).data as {
      id: string;
      subscriberId: string;
      status: string;
    }[];
    // No email integration in this environment: Ada's message fails, the other has no address.
    expect(messages.map((m) => [m.subscriberId, m.status]).sort()).toEqual([
      ["ada", "failed"],
      ["nomail", "skipped"],
    ]);
    const run = await call(client, "get_trigger", { transactionId });
    expect(run).toEqual(expect.objectContaining({ transactionId, runs: expect.objectContaining({ data: expect.any(Array) }) }));
    expect((run.runs as { data: { subscriberId: string }[] }).data.map((r) => r.subscriberId).sort()).toEqual(["ada", "nomail"]);

    const skipped = messages.find((m) => m.subscriberId === "nomail")!;
    const explained = await call(client, "explain_message", { messageId: skipped.id });
    expect(explained).toEqual(expect.objectContaining({ outcome: "skipped", reason: "missing_address" }));
    expect(explained.explanation).toMatch(/skipped because the subscriber has no address for this channel/);
    const failed = await call(client, "explain_message", { messageId: messages.find((m) => m.subscriberId === "ada")!.id });
    expect(failed).toEqual(expect.objectContaining({ outcome: "failed", reason: "no_integration" }));
    expect(failed.explanation).toMatch(/failed because the environment has no active integration for this channel/);

    const analytics = await call(client, "get_analytics", { report: "errors", workflow: workflow.key });
    expect((analytics.errors as { data: { code: string; count: number }[] }).data).toEqual([
      expect.objectContaining({ code: "no_integration", count: 1 }),
    ]);
    const totals = await call(client, "get_analytics", { report: "overview" });
    expect(totals).toEqual(expect.objectContaining({ report: "overview", overview: expect.objectContaining({ data: expect.any(Array) }) }));

    const docs = await call(client, "search_docs", { query: "quiet hours" });
    const [best] = docs.results as { page: string; heading: string; excerpt: string }[];
    expect(best?.page).toMatch(/^docs\/.+\.md$/);
    expect(`${best?.heading}\n${best?.excerpt}`).toMatch(/quiet hours/i);

    const entries = await auditOf(apiKey);
    expect(entries.map((e) => e.resourceId).sort()).toEqual([...READ, "explain_message", "get_analytics"].sort());
    expect(new Set(entries.map((e) => e.actor.name))).toEqual(new Set(["mcp:support-bot"]));
    await client.close();
  });

  it("answer an unknown resource with a tool error holding the problem", async () => {
    const { apiKey } = await environmentWithContent();
    const client = await mcpClient(apiKey);
    const result = await client.callTool({ name: "get_workflow", arguments: { key: "nope" } });
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual(expect.objectContaining({ code: "workflow_not_found" }));
    await client.close();
  });
});

describe("trigger_workflow", () => {
  it("with dryRun renders what each recipient would get and sends nothing", async () => {
    const { environment, apiKey, workflow } = await environmentWithContent();
    await createIntegration(environment.id, { provider: "sandbox-email", channel: "email", primary: true });
    const client = await mcpClient((await mcpKey(environment.slug, ["trigger"])).key);
    const transactionId = unique("dry");
    const outcome = await call(client, "trigger_workflow", {
      workflow: workflow.key,
      to: ["ada"],
      payload: { orderId: "A-7" },
      transactionId,
      dryRun: true,
    });
    expect(outcome).toEqual(expect.objectContaining({ dryRun: true, accepted: true, transactionId: null, problems: [] }));
    const [recipient] = outcome.recipients as { recipient: string; steps: { content: { subject?: string } | null }[] }[];
    expect(recipient?.recipient).toBe("ada");
    expect(recipient?.steps[0]?.content?.subject).toBe("Your order A-7 shipped");
    expect(await readTrigger(environment.id, transactionId)).toBeNull();
    expect((await api<{ data: unknown[] }>(apiKey, "GET", "/v1/sandbox/messages")).body.data).toEqual([]);
    expect((await api<{ data: unknown[] }>(apiKey, "GET", "/v1/messages")).body.data).toEqual([]);
    await client.close();
  });

  it("with dryRun reports a payload the workflow's schema refuses", async () => {
    const { apiKey, workflow } = await environmentWithContent();
    const client = await mcpClient(apiKey);
    const outcome = await call(client, "trigger_workflow", { workflow: workflow.key, to: "ada", payload: { orderId: 7 }, dryRun: true });
    expect(outcome).toEqual(expect.objectContaining({ accepted: false, problems: [expect.objectContaining({ path: "payload.orderId" })] }));
    await client.close();
  });

  it("triggers for real without dryRun, and cancel_trigger cancels it", async () => {
    const { environment, workflow } = await environmentWithContent();
    const client = await mcpClient((await mcpKey(environment.slug, ["trigger"])).key);
    const transactionId = unique("real");
    const outcome = await call(client, "trigger_workflow", { workflow: workflow.key, to: "ada", transactionId });
    expect(outcome).toEqual(expect.objectContaining({ dryRun: false, accepted: true, transactionId }));
    expect(await readTrigger(environment.id, transactionId)).not.toBeNull();
    const cancelled = await call(client, "cancel_trigger", { transactionId });
    expect(cancelled).toEqual(expect.objectContaining({ transactionId, status: expect.stringMatching(/^(cancelled|completed)$/) }));
    await client.close();
  });
});

describe("propose_change and apply_proposal", () => {
  it("proposes without a live change; a manage key applies it as one new version", async () => {
    const { environment, apiKey, workflow } = await environmentWithContent();
    const proposer = await mcpClient((await mcpKey(environment.slug, ["propose"], "writer")).key);
    const proposal = (await call(proposer, "propose_change", {
      resource: "workflow",
      key: workflow.key,
      patch: [{ op: "replace", path: "/steps/0/template/subject", value: "Shipped: {{ payload.orderId }}" }],
      note: "Shorter subject",
    })) as unknown as Proposal;
    expect(proposal).toEqual(expect.objectContaining({ status: "pending", baseVersion: 1, validation: { ok: true, errors: [] } }));
    expect(proposal.proposedBy).toEqual(expect.objectContaining({ name: "mcp:writer" }));
    expect((await api<Workflow>(apiKey, "GET", `/v1/workflows/${workflow.key}`)).body.version).toBe(1);

    const manager = await mcpClient((await mcpKey(environment.slug, ["manage"], "lead")).key);
    const applied = (await call(manager, "apply_proposal", { id: proposal.id })) as unknown as Proposal;
    expect(applied).toEqual(expect.objectContaining({ status: "applied", appliedVersion: 2 }));
    const live = (await api<Workflow>(apiKey, "GET", `/v1/workflows/${workflow.key}`)).body;
    expect(live.steps[0]).toEqual(
      expect.objectContaining({ template: expect.objectContaining({ subject: "Shipped: {{ payload.orderId }}" }) }),
    );
    await Promise.all([proposer.close(), manager.close()]);
  });
});

describe("promote", () => {
  it("is a dry run for an MCP key, whatever it asks", async () => {
    const { environment, workflow } = await environmentWithContent();
    const target = await adminEnvironment();
    const client = await mcpClient((await mcpKey(environment.slug, ["manage"])).key);
    const result = await call(client, "promote", { to: target.environment.slug, workflows: "all", dryRun: false });
    expect(result).toEqual(expect.objectContaining({ dryRun: true, note: expect.stringContaining("admin credential") }));
    expect(result.workflows).toEqual([expect.objectContaining({ key: workflow.key, outcome: "created" })]);
    expect((await api<{ data: unknown[] }>(target.key.key, "GET", "/v1/workflows")).body.data).toEqual([]);
    await client.close();
  });

  it("promotes for real with the admin credential", async () => {
    const { environment, workflow } = await environmentWithContent();
    const target = await adminEnvironment();
    const client = await mcpClient(ADMIN_KEY, { "clarion-environment": environment.slug });
    const result = await call(client, "promote", { to: target.environment.slug, workflows: [workflow.key], dryRun: false });
    expect(result).toEqual(expect.objectContaining({ dryRun: false, note: null }));
    expect((await api<Workflow>(target.key.key, "GET", `/v1/workflows/${workflow.key}`)).status).toBe(200);
    await client.close();
  });
});

describe("POST /mcp", () => {
  it.each([
    ["malformed JSON", "{not json", -32700],
    ["JSON that is not JSON-RPC", JSON.stringify({ hello: "world" }), -32700],
    ["a batch of one non-message", JSON.stringify([1]), -32700],
  ])("answers %s with a JSON-RPC error, never a 5xx", async (_, body, code) => {
    const { apiKey } = await environmentWithContent();
    const res = await rawMcp(apiKey, body);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(expect.objectContaining({ jsonrpc: "2.0", error: expect.objectContaining({ code }) }));
  });

  it("answers a tool call with arguments its schema refuses without a 5xx", async () => {
    const { apiKey } = await environmentWithContent();
    const res = await rawMcp(
      apiKey,
      JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_workflow", arguments: { key: 42 } } }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as { result?: { isError: boolean }; error?: unknown };
    expect(body.result?.isError ?? body.error).toBeTruthy();
  });

  it("refuses a request without a key, and a key that is not valid", async () => {
    expectProblem(await api(null, "POST", "/mcp", { jsonrpc: "2.0", id: 1, method: "tools/list" }), 401, "unauthorized");
    const res = await rawMcp("ck_nope_00000000000000000000000000000000", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }));
    expect(res.status).toBe(401);
  });

  it("answers GET with 405: the server keeps no session to stream", async () => {
    const { apiKey } = await environmentWithContent();
    const get = await api(apiKey, "GET", "/mcp");
    expect({ status: get.status, allow: get.headers.get("allow") }).toEqual({ status: 405, allow: "POST" });
  });
});
