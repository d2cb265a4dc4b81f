/**
 * Rows as JSON arrays of at most `maxChars` UTF-16 units each, for statements that take their rows
 * as one JSON parameter (`… FROM json_each(?)`): one statement per part. A Durable Object's SQLite
 * takes no string over 2 MB (Cloudflare's documented limit; the local runtime does not enforce
 * it), and a log shard's messages or a bulk call's trigger records can add up to far more. A row
 * longer than `maxChars` is a part alone. D1's multi-row inserts split the same way (db/row-insert.ts).
 *
 * 500,000 UTF-16 units are at most 1.5 MB of UTF-8 (a unit takes at most 3 bytes; an emoji's two
 * take 4), whatever the language of the content: the 2 MB bound is in bytes, and counting the
 * units is free where encoding each row to count its bytes is not. D1's budget is the same
 * (`JSON_ROWS_BUDGET`).
 */
export const JSON_PART_CHARS = 500_000;

/**
 * The rows of one part as the table `part`, each row's JSON text its column `v`, for a statement
 * that reads a row's values as `v ->> 0`, `v ->> 1`, …: `${PART_ROWS} INSERT INTO t (a, b)
 * SELECT v ->> 0, v ->> 1 FROM part WHERE true`. The part is the statement's first parameter (a `?`
 * after it is the second).
 *
 * Why not `SELECT value ->> 0, value ->> 1 FROM json_each(?)`: SQLite computes a virtual table's
 * column again for each reference, so it renders a row's JSON text once per value read from it. A
 * message's row (26 values, its content among them) was rendered 26 times, and that was more
 * than half of its insert (`bench/json-rows.mjs`). Materialised, each row is rendered once, and
 * its parse is reused by the reads that follow.
 *
 * Why `jsonb_each`: its rows are SQLite's binary JSON, which `->>` reads as it is. `json_each`
 * rendered each row back to JSON text, and the first `->>` parsed that text again. In a fan-out
 * SQLite's JSON functions were a fifth of its time in the local runtime (`perf`), and reading rows
 * as binary JSON took a tenth off a 100,000-member topic's CPU (docs/architecture.md, stop 61);
 * Node's SQLite shows less of it (`bench/json-rows.mjs`). The values read are the same: `->>`
 * answers SQL values and `->` JSON text from either form. For Durable Objects' SQLite; D1 keeps
 * `TEXT_PART_ROWS`.
 */
export const PART_ROWS = "WITH part(v) AS MATERIALIZED (SELECT value FROM jsonb_each(?))";

/**
 * A JSON object's column read from a row (`row`, PART_ROWS's `v` by default) that carries the
 * object itself, not its text: `row -> i` is the object's JSON text as JSON.stringify wrote it
 * (the row's own), and a JSON null is NULL. Stringified first, the object's text was escaped into
 * the row's JSON and unescaped again by SQLite, for every message.
 */
export const objectAt = (i: number, row = "v") => `nullif(${row} -> ${i}, 'null')`;

/**
 * PART_ROWS with each row as JSON text, for D1 (db/row-insert.ts): D1's SQLite is Cloudflare's
 * to choose, and only the text form is one it has always had.
 */
export const TEXT_PART_ROWS = "WITH part(v) AS MATERIALIZED (SELECT value FROM json_each(?))";

/** The bound when none is given: tests lower it to see several parts without megabytes of rows. */
export const jsonPartBound = { chars: JSON_PART_CHARS };

export function jsonParts(rows: readonly unknown[], maxChars = jsonPartBound.chars): string[] {
  return jsonPartsFrom(rows, maxChars).map((p) => p.json);
}

/**
 * `jsonParts` with where each part starts in `rows`, for statements that answer rows by their
 * place (`json_each`'s key). Rows that fit one part cost one JSON.stringify, as before the split.
 */
export function jsonPartsFrom(rows: readonly unknown[], maxChars = jsonPartBound.chars): { json: string; from: number }[] {
  if (rows.length === 0) return [];
  const whole = JSON.stringify(rows);
  if (whole.length <= maxChars) return [{ json: whole, from: 0 }];
  const parts: { json: string; from: number }[] = [];
  let current: string[] = [];
  let from = 0;
  let length = 2;
  rows.forEach((row, i) => {
    const json = JSON.stringify(row);
    if (current.length > 0 && length + json.length + 1 > maxChars) {
      parts.push({ json: `[${current.join(",")}]`, from });
      current = [];
      from = i;
      length = 2;
    }
    current.push(json);
    length += json.length + 1;
  });
  parts.push({ json: `[${current.join(",")}]`, from });
  return parts;
}
