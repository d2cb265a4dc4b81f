// What a condition can test, offered by group: the payload schema's properties, the subscriber's
// fields, the environment's variables, and the steps before this one.
import type { Step } from "./model";

export interface FieldGroup {
  label: string;
  fields: string[];
}

const SUBSCRIBER_FIELDS = ["subscriberId", "email", "phone", "firstName", "lastName", "locale", "timezone", "avatar", "data"];
const MAX_DEPTH = 4;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Dotted paths of a JSON Schema's properties, nested objects included (`payload.order.total`). */
export function schemaFields(schema: Record<string, unknown> | null, prefix = "payload", depth = 0): string[] {
  if (!schema || depth >= MAX_DEPTH || !isObject(schema.properties)) return [];
  return Object.entries(schema.properties).flatMap(([name, sub]) => {
    const path = `${prefix}.${name}`;
    return [path, ...(isObject(sub) ? schemaFields(sub, path, depth + 1) : [])];
  });
}

/** What a later condition reads of a step: its status, and what its type adds. */
function stepFields(step: Step): string[] {
  const at = `steps.${step.id}`;
  switch (step.type) {
    case "digest":
      return [`${at}.status`, `${at}.count`];
    case "branch":
      return [`${at}.path`];
    case "wait":
      return [`${at}.outcome`];
    case "http":
      return [`${at}.status`, `${at}.response.status`, `${at}.response.body.`];
    default:
      return [`${at}.status`];
  }
}

export function fieldGroups(payloadSchema: Record<string, unknown> | null, variables: string[], earlier: Step[]): FieldGroup[] {
  const groups: FieldGroup[] = [
    { label: "Payload", fields: schemaFields(payloadSchema) },
    { label: "Subscriber", fields: SUBSCRIBER_FIELDS.map((f) => `subscriber.${f}`) },
    { label: "Actor", fields: ["actor.subscriberId"] },
    { label: "Variables", fields: variables.map((key) => `vars.${key}`) },
    {
      label: "Earlier steps",
      fields: earlier.flatMap((s) => stepFields(s)),
    },
  ];
  return groups.filter((g) => g.fields.length > 0);
}
