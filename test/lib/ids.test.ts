import { describe, expect, it } from "vitest";
import { hex } from "../../src/lib/hex";
import { newId, newLogId, partitionOfId, timeOfId, uuidv7 } from "../../src/lib/ids";

describe("ids", () => {
  it("hex is each byte's two lowercase digits", () => {
    const bytes = Uint8Array.from({ length: 256 }, (_, i) => i);
    expect(hex(bytes)).toBe([...bytes].map((b) => b.toString(16).padStart(2, "0")).join(""));
    expect(hex(bytes.buffer)).toBe(hex(bytes));
    expect(hex(new Uint8Array(0))).toBe("");
  });

  it("uuidv7 is an RFC 9562 version 7 UUID carrying its millisecond", () => {
    // Ahead of every id made so far in this isolate: one made earlier keeps the clock monotonic (no earlier time).
    const at = Date.now() + 2;
    const id = uuidv7(at);
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(timeOfId(id)).toBe(at);
  });

  it("newId is its prefix and 32 hex digits, in creation order within one millisecond", () => {
    const ids = Array.from({ length: 5000 }, () => newId("evt"));
    for (const id of ids) expect(id).toMatch(/^evt_[0-9a-f]{12}7[0-9a-f]{3}[89ab][0-9a-f]{15}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
    expect(Math.abs(timeOfId(ids[0]!)! - Date.now())).toBeLessThan(5_000);
  });

  it("a log id carries its partition and its time", () => {
    const id = newLogId("msg", 0xdeadbeef);
    expect(id).toMatch(/^msg_[0-9a-f]{12}8[0-9a-f]{11}deadbeef$/);
    expect(partitionOfId(id)).toBe(0xdeadbeef);
    expect(Math.abs(timeOfId(id)! - Date.now())).toBeLessThan(5_000);
    expect(partitionOfId(newId("msg"))).toBeNull();
  });
});
