import type { z } from "@hono/zod-openapi";
import type { McpScope } from "../../contract/api-keys";
import type { Bindings } from "../../env";
import type { McpCaller } from "./auth";

/** What a tool runs with: the caller's environment, bound once, and who it is. */
export interface ToolContext {
  env: Bindings;
  caller: McpCaller;
}

type Shape = z.ZodObject;

/**
 * One MCP tool: its scope, its input and output as zod (the SDK turns them into the JSON Schemas
 * `tools/list` shows, and checks both), and what it does, by calling the features' own services.
 * A problem the caller can fix is an `ApiError`: the client sees its message as a tool error.
 */
export interface McpTool<I extends Shape = Shape, O extends Shape = Shape> {
  name: string;
  scope: McpScope;
  title: string;
  description: string;
  input: I;
  output: O;
  /** Argument fields the audit log records as `[omitted]`: content and payloads, which may hold personal data. */
  unrecorded?: readonly (keyof z.infer<I> & string)[];
  run(args: z.infer<I>, context: ToolContext): Promise<z.infer<O>>;
}

/** Keeps each tool's input and output types together while the server holds them in one list. */
export const defineTool = <I extends Shape, O extends Shape>(tool: McpTool<I, O>): McpTool => tool as unknown as McpTool;
