/**
 * Rows as JSON arrays of at most `maxChars` characters each, for statements that take their rows
 * as one JSON parameter (`… FROM json_each(?)`): one statement per part. A Durable Object's SQLite
 * takes no string over 2 MB (Cloudflare's documented limit; the local runtime does not enforce
 * it), and a log shard's messages or a bulk call's trigger records can add up to far more. A row
 * longer than `maxChars` is a part alone. D1's multi-row inserts split the same way (db/row-insert.ts).
 */
export const JSON_PART_CHARS = 1_500_000;

export function jsonParts(rows: readonly unknown[], maxChars = JSON_PART_CHARS): string[] {
  const parts: string[] = [];
  let current: string[] = [];
  let length = 2;
  for (const row of rows) {
    const json = JSON.stringify(row);
    if (current.length > 0 && length + json.length + 1 > maxChars) {
      parts.push(`[${current.join(",")}]`);
      current = [];
      length = 2;
    }
    current.push(json);
    length += json.length + 1;
  }
  if (current.length > 0) parts.push(`[${current.join(",")}]`);
  return parts;
}
