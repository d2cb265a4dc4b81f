import { describe, expect, it } from "vitest";
import { compareCodePoints } from "../../src/lib/code-point-order";

const utf8 = new TextEncoder();
/** SQLite's BINARY collation: UTF-8 bytes, then length. */
function byBytes(a: string, b: string): number {
  const x = utf8.encode(a);
  const y = utf8.encode(b);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

// Characters from every range where UTF-16 and UTF-8 orders can part: ASCII, below the
// surrogates, just above them (U+E000 to U+FFFF), and above U+FFFF (surrogate pairs).
const ALPHABET = ["a", "z", "~", "é", "中", "\uD7FF", "\uE000", "\uFF01", "\uFFFD", "😀", "😁", "𝔸", "\u{10FFFF}"];
const randomText = () =>
  Array.from({ length: 1 + Math.floor(Math.random() * 4) }, () => ALPHABET[Math.floor(Math.random() * ALPHABET.length)]).join("");

describe("compareCodePoints", () => {
  it("orders as SQLite's BINARY collation (UTF-8 bytes), where JavaScript's < does not", () => {
    expect(Math.sign(compareCodePoints("t-😀", "t-\uFF01"))).toBe(1);
    expect("t-😀" < "t-\uFF01").toBe(true);
    for (let i = 0; i < 5_000; i++) {
      const a = randomText();
      const b = randomText();
      expect([a, b, Math.sign(compareCodePoints(a, b))]).toEqual([a, b, Math.sign(byBytes(a, b))]);
    }
  });
});
