// Multi-row statements bind their rows as JSON, in parts under a Durable Object's 2 MB per string.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { LogShard } from "../../src/durable-objects/log/log-shard";
import type { LogMessage } from "../../src/durable-objects/log/rows";
import { JSON_PART_CHARS, jsonParts } from "../../src/lib/json-parts";
import { unique } from "../factories";
import { logMessage } from "../log";

describe("jsonParts", () => {
  it("keeps every row, in order, in parts no longer than the bound; a longer row is a part alone", () => {
    const rows = [
      ["a", 1],
      ["b".repeat(40), 2],
      ["c", 3],
      ["d".repeat(100), 4],
      ["e", 5],
    ];
    const parts = jsonParts(rows, 50);
    expect(parts.flatMap((p) => JSON.parse(p) as unknown[])).toEqual(rows);
    for (const p of parts) expect(p.length <= 50 || (JSON.parse(p) as unknown[]).length === 1).toBe(true);
    expect(parts.length).toBeGreaterThan(2);
    expect(jsonParts([])).toEqual([]);
    expect(jsonParts(rows)).toEqual([JSON.stringify(rows)]);
  });

  it("keeps every part under 2 MB of UTF-8 whatever the script: the limit is in bytes, not characters", () => {
    // CJK takes 3 bytes a character: a part of 1.5 million of them (the bound counted in characters) was 4.5 MB.
    const rows = Array.from({ length: 40 }, (_, i) => [i, "通知".repeat(25_000)]);
    const parts = jsonParts(rows);
    expect(parts.flatMap((p) => JSON.parse(p) as unknown[])).toEqual(rows);
    for (const p of parts) expect(new TextEncoder().encode(p).length).toBeLessThanOrEqual(2_000_000);
  });
});

describe("a log shard write larger than one part", () => {
  it("stores every message, and a send identity written again in a later part keeps its first row", async () => {
    const name = unique("log-parts");
    const shard = env.LOGS.get(env.LOGS.idFromName(name)) as DurableObjectStub<LogShard>;
    const environmentId = unique("env");
    const html = `<p>${"x".repeat(100_000)}</p>`;
    const at = Date.now();
    const message = (i: number): LogMessage =>
      logMessage({
        environmentId,
        subscriberId: `s${i}`,
        transactionId: `tx-${i}`,
        createdAt: at,
        provider: "sandbox-email",
        to: `s${i}@example.com`,
        content: { html },
      });
    const count = Math.ceil((2.5 * JSON_PART_CHARS) / html.length);
    const first = Array.from({ length: count }, (_, i) => message(i));
    // The last one repeats the first's send identity under a new id: it lands in a later part.
    const again = message(0);
    const written = await shard.write(name, { inserts: [...first, again] });
    expect(written.existing).toEqual([{ requested: again.id, id: first[0]!.id }]);
    const stored = await runInDurableObject(shard, (_o: LogShard, state) =>
      state.storage.sql.exec<{ id: string; content: string }>("SELECT id, content FROM messages WHERE env = ?", environmentId).toArray(),
    );
    expect(stored.map((m) => m.id).sort()).toEqual(first.map((m) => m.id).sort());
    expect(stored.every((m) => (JSON.parse(m.content) as { html: string }).html === html)).toBe(true);
  });
});
