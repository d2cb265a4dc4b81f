// The kinds of environment key and an MCP key's scopes, with no imports: the D1 schema, the zod
// schemas, the MCP server and the dashboard read them from here.

/** `api`: the whole API of its environment. `mcp`: only `/mcp`, and only the tools of its scopes. */
export const API_KEY_KINDS = ["api", "mcp"] as const;
export type ApiKeyKind = (typeof API_KEY_KINDS)[number];

/**
 * What an MCP key may do: `read` the environment, `trigger` (and cancel) workflows, `propose`
 * changes for a person to review, `manage` (apply proposals, promote).
 */
export const MCP_SCOPES = ["read", "trigger", "propose", "manage"] as const;
export type McpScope = (typeof MCP_SCOPES)[number];
