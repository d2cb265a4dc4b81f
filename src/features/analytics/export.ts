import { z } from "@hono/zod-openapi";

type Cell = string | number | boolean | null;
export type FlatRow = Record<string, Cell>;

/** Nested objects become dotted columns (`rates.delivery`, `skippedByReason.condition`); arrays become JSON text. */
export function flatten(value: Record<string, unknown>, prefix = "", into: FlatRow = {}): FlatRow {
  for (const [key, v] of Object.entries(value)) {
    const name = prefix ? `${prefix}.${key}` : key;
    if (Array.isArray(v)) into[name] = JSON.stringify(v);
    else if (v !== null && typeof v === "object") flatten(v as Record<string, unknown>, name, into);
    else into[name] = (v ?? null) as Cell;
  }
  return into;
}

const csvCell = (v: Cell) => {
  if (v === null) return "";
  const text = String(v);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

/** RFC 4180: a header of every column any row has (in first-seen order), CRLF line ends, quoted when needed. */
export function toCsv(rows: FlatRow[]): string {
  const columns = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  const lines = [columns.map((c) => csvCell(c)).join(","), ...rows.map((r) => columns.map((c) => csvCell(r[c] ?? null)).join(","))];
  return `${lines.join("\r\n")}\r\n`;
}

export const toNdjson = (rows: FlatRow[]) => rows.map((r) => `${JSON.stringify(r)}\n`).join("");

export const EXPORT_TYPES = ["text/csv", "application/x-ndjson"] as const;
type ExportType = (typeof EXPORT_TYPES)[number];

/** The export the `Accept` header asks for (the first of ours it names), or null for JSON. */
export function exportTypeOf(accept: string | undefined): ExportType | null {
  for (const part of (accept ?? "").split(",")) {
    const type = part.split(";")[0]!.trim().toLowerCase();
    if (type === "application/json") return null;
    if ((EXPORT_TYPES as readonly string[]).includes(type)) return type as ExportType;
  }
  return null;
}

/** The export answer of a report: one row per item of its main list, flattened. */
export function exportResponse(type: ExportType, rows: FlatRow[], name: string): Response {
  const body = type === "text/csv" ? toCsv(rows) : toNdjson(rows);
  const contentType = type === "text/csv" ? "text/csv; charset=utf-8; header=present" : "application/x-ndjson; charset=utf-8";
  const extension = type === "text/csv" ? "csv" : "ndjson";
  return new Response(body, {
    status: 200,
    headers: { "content-type": contentType, "content-disposition": `attachment; filename="${name}.${extension}"`, vary: "Accept" },
  });
}

/** A report's 200 content: its JSON, and the two exports of its main list. */
export const withExports = <T extends z.ZodType>(schema: T, rows: string) => ({
  "application/json": { schema },
  "text/csv": {
    schema: z.string().openapi({
      description: `With \`Accept: text/csv\`: ${rows}, columns flattened (nested fields dotted, lists as JSON), RFC 4180 with a header.`,
    }),
  },
  "application/x-ndjson": {
    schema: z.string().openapi({ description: `With \`Accept: application/x-ndjson\`: ${rows}, one flattened JSON object per line.` }),
  },
});
