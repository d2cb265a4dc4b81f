import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/cfworker";
import { type CallToolResult, ErrorCode, isJSONRPCRequest, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../env";
import { ApiError } from "../../lib/errors";
import { createRouter } from "../../lib/openapi";
import { inBackground } from "../environments/auth";
import { type McpCaller, mcpCallerOf } from "./auth";
import { analyticsTools } from "./analytics-tools";
import { docsTools } from "./docs-search";
import { manageTools } from "./manage-tools";
import { proposeTools } from "./propose-tools";
import { readTools } from "./read-tools";
import type { McpTool, ToolContext } from "./tool";
import { triggerTools } from "./trigger-tools";

/** Every tool, in the order `tools/list` shows them; each caller sees those of its scopes. */
export const MCP_TOOLS: readonly McpTool[] = [
  ...readTools,
  ...analyticsTools,
  ...docsTools,
  ...triggerTools,
  ...proposeTools,
  ...manageTools,
];

/** A tool call's body is small; a workflow proposed whole is the largest. */
const MAX_BODY_BYTES = 1024 * 1024;

const INSTRUCTIONS =
  "Clarion sends notifications (email, SMS, push, chat, in-app) from workflows. Read tools look at one environment; trigger_workflow with dryRun: true shows what a trigger would send without sending. Changes to content are proposals (propose_change) that a person reviews and applies; nothing you propose is live until applied.";

/** The arguments as the audit log keeps them: content and payloads left out (they may hold personal data). */
function recorded(tool: McpTool, args: Record<string, unknown>) {
  const kept = { ...args };
  for (const field of tool.unrecorded ?? []) if (field in kept) kept[field] = "[omitted]";
  return kept;
}

/** One entry per call, after it: who (`mcp:<key name>`), which tool, with what, and how it ended. */
function audit(caller: McpCaller, tool: string, after: Record<string, unknown>) {
  return caller.data.audit.record(caller.audit, { resource: "mcp_tool", resourceId: tool, action: "called", before: null, after });
}

/** A refusal the caller can act on, as a tool error holding the problem document the API would answer. */
const toolError = (error: ApiError): CallToolResult => ({
  content: [{ type: "text", text: JSON.stringify(error.toProblem()) }],
  isError: true,
});

function register(server: McpServer, tool: McpTool, context: ToolContext) {
  server.registerTool(
    tool.name,
    {
      title: tool.title,
      description: tool.description,
      inputSchema: tool.input,
      outputSchema: tool.output,
      annotations: { title: tool.title, readOnlyHint: tool.scope === "read" },
    },
    async (args: z.infer<McpTool["input"]>): Promise<CallToolResult> => {
      const called = { arguments: recorded(tool, args), scope: tool.scope };
      try {
        const result = await tool.run(args, context);
        await audit(context.caller, tool.name, { ...called, outcome: "ok" });
        return { content: [{ type: "text", text: JSON.stringify(result) }], structuredContent: result };
      } catch (error) {
        const known = error instanceof ApiError && error.status < 500;
        if (!known)
          console.error(
            JSON.stringify({ level: "error", tool: tool.name, message: error instanceof Error ? error.message : String(error) }),
          );
        const problem = known ? error : new ApiError("internal_error", "The tool failed; the error is logged with the request id.");
        await audit(context.caller, tool.name, { ...called, outcome: "error", errorCode: problem.code });
        return toolError(problem);
      }
    },
  );
}

/**
 * A tool this caller may not call, or one that does not exist, is a protocol error (-32602), as
 * the MCP specification has it for unknown tools: the SDK's own answer would be a tool result
 * flagged `isError`, which a client may show as the tool's output. Refusals are audited too.
 */
function refuseUnlisted(transport: WebStandardStreamableHTTPServerTransport, caller: McpCaller, listed: ReadonlySet<string>) {
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage, extra) => {
    const name = isJSONRPCRequest(message) && message.method === "tools/call" ? message.params?.name : undefined;
    if (!isJSONRPCRequest(message) || name === undefined || (typeof name === "string" && listed.has(name))) {
      deliver?.(message, extra);
      return;
    }
    const known = MCP_TOOLS.find((t) => t.name === name);
    const refusal = known
      ? `Tool "${known.name}" needs the "${known.scope}" scope, which this key does not have.`
      : `Unknown tool ${JSON.stringify(name)}.`;
    const answer = async () => {
      if (known) await audit(caller, known.name, { scope: known.scope, outcome: "refused", errorCode: "forbidden" });
      await transport.send({ jsonrpc: "2.0", id: message.id, error: { code: ErrorCode.InvalidParams, message: refusal } });
    };
    void answer();
  };
}

/** One server per request (the transport is stateless): only the caller's tools are registered. */
async function handle(c: Context<AppEnv>): Promise<Response> {
  const caller = await mcpCallerOf(c);
  const server = new McpServer(
    { name: "clarion", version: "0.12.0" },
    {
      instructions: INSTRUCTIONS,
      // Ajv, the default, compiles schemas with `new Function`, which Workers refuse.
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  const tools = MCP_TOOLS.filter((tool) => caller.scopes.has(tool.scope));
  for (const tool of tools) register(server, tool, { env: c.env, caller });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_BODY_BYTES,
  });
  await server.connect(transport);
  refuseUnlisted(transport, caller, new Set(tools.map((t) => t.name)));
  const response = await transport.handleRequest(c.req.raw);
  inBackground(c, server.close());
  return response;
}

export const mcpRoutes = createRouter();

mcpRoutes.post("/mcp", handle);
// Stateless: no stream to resume (GET) and no session to end (DELETE).
mcpRoutes.on(["GET", "DELETE"], "/mcp", (c) =>
  c.json({ jsonrpc: "2.0", error: { code: -32000, message: "Method not allowed: send JSON-RPC messages with POST." }, id: null }, 405, {
    allow: "POST",
  }),
);
