// A secret is shown once. An answer that carries one (a new API key, later a webhook endpoint's or an
// inbox's signing secret) declares where (`secrets` in `apiRoute`), and the idempotency store keeps
// that answer without it: a replay says what was made and that the secret is not shown again.
import { z } from "@hono/zod-openapi";

/** Dotted paths into a JSON answer: `key` (a field), `key.key` (a field of a field). */
export type SecretPaths = readonly string[];

/** Added to a replayed answer whose secrets were left out. */
export const SecretsOmitted = z.object({
  secretsOmitted: z.array(z.string()).openapi({
    description: "The fields of the first answer that held a secret: shown once, never stored, so left out of this replay.",
    example: ["key"],
  }),
  note: z.string().openapi({ example: "The secret was shown in the first answer only and is not shown again." }),
});

const NOTE = "The secret was shown in the first answer only and is not shown again.";

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

function omitPath(value: unknown, path: readonly string[]): boolean {
  const [head, ...rest] = path;
  if (!isRecord(value) || head === undefined || !(head in value)) return false;
  if (rest.length === 0) return delete value[head];
  return omitPath(value[head], rest);
}

/** The answer as it may be stored: the secrets taken out and said so; null when the body is not JSON. */
export function storableBody(body: string, secrets: SecretPaths): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  if (!isRecord(parsed)) return null;
  const omitted = secrets.filter((path) => omitPath(parsed, path.split(".")));
  return JSON.stringify({ ...parsed, secretsOmitted: omitted, note: NOTE });
}

/**
 * The documented shape of a replay: `schema` without the secret fields, with `secretsOmitted` and
 * `note`. Built as new objects from the shapes: an `.extend` of a named schema would be documented
 * as `allOf` that schema, secret included.
 */
export function replaySchema(schema: z.ZodObject, secrets: SecretPaths): z.ZodObject {
  const without = (shape: z.ZodRawShape, path: readonly string[]): z.ZodRawShape => {
    const [head, ...rest] = path;
    if (head === undefined || !(head in shape)) return shape;
    const { [head]: field, ...others } = shape;
    if (rest.length === 0) return others;
    return field instanceof z.ZodObject ? { ...shape, [head]: z.object(without(field.shape, rest)) } : shape;
  };
  const shape = secrets.reduce((current, path) => without(current, path.split(".")), schema.shape as z.ZodRawShape);
  return z.object({ ...shape, ...SecretsOmitted.shape });
}
