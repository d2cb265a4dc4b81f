import { describe, expect, it } from "vitest";
import { canonicalJson } from "../../src/lib/crypto";

/**
 * The text canonicalJson gave until 0.13 (a replacer that sorted each object's entries): stored
 * idempotency fingerprints and trigger fingerprints were made from it, so a replayed request must
 * still hash to the same value.
 */
const replacerText = (value: unknown) =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );

/** A deterministic generator of JSON-like values (keys include integer-like, unicode and `__proto__`). */
function values(seed: number, count: number): unknown[] {
  let s = seed;
  const next = () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
  const keys = ["b", "a", "10", "9", "0", "__proto__", "Z", "z", "é", "😀", "a b", "", "constructor", "toString"];
  const value = (depth: number): unknown => {
    const r = next();
    if (depth > 3 || r < 0.3) {
      const leaf = [null, true, false, 0, -0, 1.5, 1e21, -7, "x", '\u2028"\\', undefined][Math.floor(next() * 11)];
      return leaf;
    }
    if (r < 0.55) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 6); i > 0; i--)
      Object.defineProperty(object, keys[Math.floor(next() * keys.length)]!, {
        value: value(depth + 1),
        enumerable: true,
        configurable: true,
        writable: true,
      });
    return object;
  };
  return Array.from({ length: count }, () => value(0));
}

describe("canonicalJson", () => {
  it("sorts keys at every depth, integer-like keys first as in any object", () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: null }, 10: "x", 9: "y" })).toBe(
      '{"9":"y","10":"x","a":{"c":null,"d":[{"y":2,"z":1}]},"b":1}',
    );
  });

  it("keeps a key named __proto__ as a key, and leaves out undefined as JSON does", () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"a":1}') as unknown;
    expect(canonicalJson(parsed)).toBe('{"__proto__":{"polluted":true},"a":1}');
    expect(canonicalJson({ a: undefined, b: [undefined] })).toBe('{"b":[null]}');
    expect(({} as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it("gives the text the replacer gave, for 2,000 generated values", () => {
    for (const value of values(7, 2_000)) expect(canonicalJson(value)).toBe(replacerText(value));
  });

  it("gives the same as before for a Date, which JSON turns into its ISO text first", () => {
    const value = { at: new Date(Date.UTC(2026, 10, 30)), list: [new Date(0)] };
    expect(canonicalJson(value)).toBe(replacerText(value));
  });

  it("writes a trigger's fingerprint fields as the text fingerprints were made from", () => {
    // The fields accept.ts hashes, and the exact text: a stored fingerprint is its SHA-256.
    const fields = {
      workflowKey: "welcome",
      to: { subscriberId: "u-1", email: "a@example.com" },
      payload: { n: 1, list: [{ b: 2, a: 1 }] },
      overrides: null,
      actor: null,
    };
    const text =
      '{"actor":null,"overrides":null,"payload":{"list":[{"a":1,"b":2}],"n":1},"to":{"email":"a@example.com","subscriberId":"u-1"},"workflowKey":"welcome"}';
    expect(canonicalJson(fields)).toBe(text);
  });
});
