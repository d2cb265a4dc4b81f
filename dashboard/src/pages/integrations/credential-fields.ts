// The credential form's fields, read from a provider's JSON Schema (`GET /v1/providers`). Only the
// subset zod's converter writes for the adapters is understood: flat object properties of string,
// number, integer, boolean or enum type, `anyOf` with null or with an object (a JSON key file
// pasted as text), `required`, `default` and `description`. Anything else becomes a JSON text box.

type Schema = Record<string, unknown>;

interface Base {
  name: string;
  label: string;
  description?: string;
  required: boolean;
}

export type CredentialField =
  | (Base & { kind: "text"; secret: boolean; multiline: boolean })
  | (Base & { kind: "number"; integer: boolean; minimum?: number; maximum?: number; default?: number })
  | (Base & { kind: "boolean"; default?: boolean })
  | (Base & { kind: "enum"; options: string[]; default?: string })
  | (Base & { kind: "json" });

const isSchema = (value: unknown): value is Schema => typeof value === "object" && value !== null && !Array.isArray(value);
const str = (value: unknown) => (typeof value === "string" ? value : undefined);
const num = (value: unknown) => (typeof value === "number" ? value : undefined);

/** Values pasted whole from a file: a PEM key, a service-account JSON. */
const MULTILINE_NAME = /privatekey|private_key|serviceaccount/i;

const ACRONYMS: Record<string, string> = {
  api: "API",
  url: "URL",
  uri: "URI",
  id: "ID",
  sid: "SID",
  uuid: "UUID",
  ttl: "TTL",
  vapid: "VAPID",
  sns: "SNS",
  arn: "ARN",
  sms: "SMS",
  v2: "V2",
};

/** `webhookSigningKey` → "Webhook signing key", `apiKey` → "API key", `project_id` → "Project ID". */
export function labelOf(name: string): string {
  const words = name
    .replace(/_/g, " ")
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => ACRONYMS[word] ?? word);
  const text = words.join(" ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const typesOf = (schema: Schema): string[] => {
  const type = schema.type;
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === "string") : typeof type === "string" ? [type] : [];
};

function fieldOf(name: string, schema: Schema, required: boolean): CredentialField {
  const branches = Array.isArray(schema.anyOf) ? schema.anyOf.filter(isSchema) : [schema];
  const types = branches.flatMap(typesOf).filter((t) => t !== "null");
  const base: Base = { name, label: labelOf(name), description: str(schema.description), required };
  const options = branches.flatMap((b) => (Array.isArray(b.enum) ? b.enum.filter((v): v is string => typeof v === "string") : []));
  if (options.length) return { ...base, kind: "enum", options, default: str(schema.default) };
  if (types.includes("string")) {
    const format = str(schema.format);
    return {
      ...base,
      kind: "text",
      // The adapters mark their secrets `writeOnly` (on a union, on a branch): only those are masked in answers.
      secret: schema.writeOnly === true || branches.some((b) => b.writeOnly === true) || format === "password",
      multiline: MULTILINE_NAME.test(name) || types.includes("object"),
    };
  }
  if (types.length === 1 && (types[0] === "integer" || types[0] === "number"))
    return {
      ...base,
      kind: "number",
      integer: types[0] === "integer",
      minimum: num(schema.minimum),
      maximum: num(schema.maximum),
      default: num(schema.default),
    };
  if (types.length === 1 && types[0] === "boolean")
    return { ...base, kind: "boolean", default: typeof schema.default === "boolean" ? schema.default : undefined };
  return { ...base, kind: "json" };
}

/** The fields of a provider's credentials schema, required ones first, each group in the schema's order. */
export function credentialFields(schema: Record<string, unknown>): CredentialField[] {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === "string") : []);
  const fields = Object.entries(properties)
    .filter((entry): entry is [string, Schema] => isSchema(entry[1]))
    .map(([name, property]) => fieldOf(name, property, required.has(name)));
  return [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)];
}

/** What the form holds per field: text for inputs and selects, a flag for checkboxes. */
export type FormValues = Record<string, string | boolean>;

/**
 * The values a form starts with: what the integration shows in clear. The API masks secrets, so a
 * secret is never put back into an input, and its untouched field keeps the stored value (see
 * `credentialsToSend`).
 */
export function initialValues(fields: CredentialField[], stored?: Record<string, unknown>): FormValues {
  return Object.fromEntries(
    fields.map((field): [string, string | boolean] => {
      const value = stored?.[field.name];
      switch (field.kind) {
        case "boolean":
          return [field.name, typeof value === "boolean" ? value : (field.default ?? false)];
        case "number":
          return [
            field.name,
            typeof value === "number" ? String(value) : stored ? "" : field.default !== undefined ? String(field.default) : "",
          ];
        case "enum":
          return [field.name, typeof value === "string" ? value : stored ? "" : (field.default ?? "")];
        case "text":
          return [field.name, !field.secret && typeof value === "string" ? value : ""];
        default:
          return [field.name, ""];
      }
    }),
  );
}

export class CredentialInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

function typedValue(field: CredentialField, value: string | boolean): unknown {
  if (typeof value === "boolean") return value;
  if (field.kind === "number") {
    const n = Number(value);
    if (!Number.isFinite(n)) throw new CredentialInputError(field.name, "A number.");
    return n;
  }
  if (field.kind === "json") {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      throw new CredentialInputError(field.name, "Not valid JSON.");
    }
  }
  return value;
}

/**
 * The credentials to send. Creating: what was filled in. Editing (`stored` is the integration's
 * masked credentials): a text field left empty sends back the masked value the API answered
 * with, which the API reads as "keep the stored one"; `cleared` names the fields to remove.
 * Undefined when an edit changes nothing, so the stored credentials are not even re-validated.
 */
export function credentialsToSend(
  fields: CredentialField[],
  values: FormValues,
  stored?: Record<string, unknown>,
  cleared: ReadonlySet<string> = new Set(),
): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = { ...stored };
  let changed = !stored;
  for (const field of fields) {
    const value = values[field.name];
    if (value === undefined) continue;
    if (cleared.has(field.name)) {
      if (field.name in out) changed = true;
      delete out[field.name];
      continue;
    }
    if (value === "") {
      // An emptied number is removed; an empty text or select means "unchanged" (its value is masked, never shown).
      if (field.kind === "number" && field.name in out) {
        delete out[field.name];
        changed = true;
      }
      continue;
    }
    if (value === false && stored?.[field.name] === undefined) continue;
    const typed = typedValue(field, value);
    if (stored?.[field.name] !== typed) changed = true;
    out[field.name] = typed;
  }
  return changed ? out : undefined;
}
