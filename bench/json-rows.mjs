// `npm run bench:json-rows`: what a log shard's multi-row statements cost in SQLite, read two ways.
// No Clarion: Node's own SQLite (node:sqlite), in memory. Inserts 2,000 rows shaped like a log
// shard's message (26 values, one of them the rendered content) into a WITHOUT ROWID table, as one
// JSON array parameter, ten times each way, and prints the time per statement:
// - `json_each`: `SELECT value ->> 0, …, value ->> 25 FROM json_each(?)`, as the shards did to 0.13;
// - `TEXT_PART_ROWS`: the rows materialised once first (`WITH part(v) AS MATERIALIZED (SELECT value
//   FROM json_each(?))`, src/lib/json-parts.ts, as D1's multi-row inserts still do), then `v ->> 0, …` read from them;
// - `PART_ROWS`: the same from `jsonb_each`, as the log shards and ledgers do since 0.13: each row
//   stays SQLite's binary JSON, which `->>` reads without parsing text.
// SQLite computes a virtual table's column per reference, so the first renders each row's JSON
// text once per value read; the second renders it once, and the first `->>` parses it again; the
// third renders no text. The local runtime's SQLite (workerd) is
// another build of the same library: the ratio, not the milliseconds, is what carries over.
import { DatabaseSync } from "node:sqlite";

const COLUMNS = 26;
const ROWS = Number(process.env.BENCH_ROWS ?? 2_000);
const ROUNDS = 10;
const names = Array.from({ length: COLUMNS }, (_, i) => `c${i}`);
const content = JSON.stringify({ title: "Your order shipped", body: "It left our warehouse today. ".repeat(8), data: { order: 1234 } });
const rowsOf = (round) =>
  Array.from({ length: ROWS }, (_, r) =>
    names.map((_, i) => (i === 0 ? `${round}-${String(r).padStart(6, "0")}` : i === 14 ? content : i % 3 === 0 ? r * i : `v${i}-${r}`)),
  );
const values = (ref) => names.map((_, i) => `${ref} ->> ${i}`).join(", ");
const FORMS = {
  json_each: `INSERT INTO t SELECT ${values("value")} FROM json_each(?) WHERE true ON CONFLICT DO NOTHING RETURNING c0`,
  TEXT_PART_ROWS: `WITH part(v) AS MATERIALIZED (SELECT value FROM json_each(?)) INSERT INTO t SELECT ${values("v")} FROM part WHERE true ON CONFLICT DO NOTHING RETURNING c0`,
  PART_ROWS: `WITH part(v) AS MATERIALIZED (SELECT value FROM jsonb_each(?)) INSERT INTO t SELECT ${values("v")} FROM part WHERE true ON CONFLICT DO NOTHING RETURNING c0`,
};

function measure(sql) {
  const db = new DatabaseSync(":memory:");
  db.exec(`CREATE TABLE t (${names.map((c, i) => (i === 0 ? `${c} TEXT PRIMARY KEY` : c)).join(", ")}) WITHOUT ROWID`);
  db.exec("CREATE INDEX t_1 ON t (c1, c3)");
  const statement = db.prepare(sql);
  let ms = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const part = JSON.stringify(rowsOf(round));
    const started = performance.now();
    const inserted = statement.all(part).length;
    ms += performance.now() - started;
    if (inserted !== ROWS) throw new Error(`inserted ${inserted} of ${ROWS}`);
  }
  const stored = db.prepare("SELECT c14, c3 FROM t WHERE c0 = ?").get(`3-${String(7).padStart(6, "0")}`);
  if (stored.c14 !== content || stored.c3 !== 21) throw new Error("a row was stored differently");
  db.close();
  return ms / ROUNDS;
}

console.log(`${ROWS} rows of ${COLUMNS} values in one statement, best of 3 (ms per statement):`);
const best = {};
for (let trial = 0; trial < 3; trial++)
  for (const [name, sql] of Object.entries(FORMS)) best[name] = Math.min(best[name] ?? Infinity, measure(sql));
for (const [name, ms] of Object.entries(best))
  console.log(`  ${name.padEnd(14)} ${ms.toFixed(1)} ms (${((ms * 1000) / ROWS).toFixed(1)} µs a row)`);
console.log(`  json_each ÷ TEXT_PART_ROWS: ${(best.json_each / best.TEXT_PART_ROWS).toFixed(2)}`);
console.log(`  TEXT_PART_ROWS ÷ PART_ROWS: ${(best.TEXT_PART_ROWS / best.PART_ROWS).toFixed(2)}`);
