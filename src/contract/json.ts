import { z } from "@hono/zod-openapi";

/**
 * A value as JSON holds it. Data that crosses a Durable Object RPC boundary is typed with this
 * rather than `unknown`: Cloudflare's stub types turn any result holding `unknown` into `never`,
 * which would let a caller declare whatever it likes of what the object answered. Interfaces,
 * not type aliases, make the recursion: the stub types expand an alias until tsc gives up.
 */
export type Json = string | number | boolean | null | JsonArray | JsonObject;
export interface JsonObject {
  [key: string]: Json;
}
export interface JsonArray extends Array<Json> {}

/** zod's own JSON schema, typed as `Json` (its recursive alias is the kind the stub types cannot expand). */
export const JsonValue: z.ZodType<Json> = z.json();

/*
 * A request's free-form fields (payload, overrides, recipients, actor) as the JSON they were
 * parsed from: the edge's zod schemas check their shape and leave their content `unknown`, but
 * every value in a JSON body came out of JSON.parse, so it is JSON by construction.
 */
export const parsedJson = (value: unknown) => value as Json;
export const parsedJsonObject = (value: Record<string, unknown>) => value as JsonObject;
