import { addressLengthProblem, hasLineBreak, LINE_BREAK_MESSAGE } from "../../contract/email-address";

type Issue = { path: PropertyKey[]; message: string };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** The fields of `overrides.email` a provider puts in a header, and those that hold an address. */
const EMAIL_HEADER_FIELDS = ["from", "replyTo", "subject"] as const;
const ADDRESS_FIELDS = new Set(["from", "replyTo"]);
/** The same in a provider's own overrides (`overrides.<provider>`), in the spellings providers use. */
const PROVIDER_HEADER_FIELDS = ["from", "replyTo", "reply_to", "subject", "sender"] as const;

/**
 * What a trigger's overrides may not carry: a line break in anything sent as an email header
 * (it would inject headers such as `Bcc:`), and addresses longer than RFC 5321 allows.
 */
export function overridesIssues(overrides: Record<string, unknown> | undefined): Issue[] {
  if (!overrides) return [];
  const issues: Issue[] = [];
  const checkHeader = (value: unknown, path: PropertyKey[], address: boolean) => {
    if (typeof value !== "string") return;
    if (hasLineBreak(value)) issues.push({ path, message: LINE_BREAK_MESSAGE });
    else if (address) {
      const problem = addressLengthProblem(value);
      if (problem) issues.push({ path, message: problem });
    }
  };
  for (const [section, patch] of Object.entries(overrides)) {
    if (!isRecord(patch)) continue;
    const fields = section === "email" ? EMAIL_HEADER_FIELDS : PROVIDER_HEADER_FIELDS;
    for (const field of fields) checkHeader(patch[field], ["overrides", section, field], ADDRESS_FIELDS.has(field));
    const headers = patch.headers;
    if (isRecord(headers)) {
      for (const [name, value] of Object.entries(headers)) {
        if (hasLineBreak(name)) issues.push({ path: ["overrides", section, "headers", name], message: LINE_BREAK_MESSAGE });
        else checkHeader(value, ["overrides", section, "headers", name], false);
      }
    }
  }
  return issues;
}
