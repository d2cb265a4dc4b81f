import { SELF } from "cloudflare:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import type { McpScope } from "../../src/contract/api-keys";
import type { ApiKeyCreated } from "../../src/features/environments/schemas";
import { admin } from "../admin/helpers";

export const MCP_URL = "http://clarion.test/mcp";

/** The official SDK's client over Streamable HTTP, its requests sent to the Worker under test. */
export async function mcpClient(key: string, headers: Record<string, string> = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(MCP_URL), {
    requestInit: { headers: { authorization: `Bearer ${key}`, ...headers } },
    fetch: (url, init) => SELF.fetch(url, init),
  });
  // Ajv compiles schemas with `new Function`, which the Workers runtime refuses.
  const client = new Client({ name: "clarion-tests", version: "1.0.0" }, { jsonSchemaValidator: new CfWorkerJsonSchemaValidator() });
  await client.connect(transport);
  return client;
}

/** An MCP key of the environment with these scopes, through the admin API. */
export async function mcpKey(slug: string, scopes: McpScope[], name = `agent-${scopes.join("-")}`): Promise<ApiKeyCreated> {
  const res = await admin<ApiKeyCreated>("POST", `/environments/${slug}/keys`, { name, kind: "mcp", scopes });
  if (res.status !== 201) throw new Error(`MCP key not created: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A raw JSON-RPC POST to /mcp, as a client would send it, for what the SDK client never sends. */
export const rawMcp = (key: string, body: string, headers: Record<string, string> = {}) =>
  SELF.fetch(MCP_URL, {
    method: "POST",
    headers: {
      authorization: `Bearer ${key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-06-18",
      ...headers,
    },
    body,
  });
