/**
 * Compares strings as SQLite orders TEXT (its BINARY collation compares UTF-8 bytes, which is
 * code point order), not as JavaScript's `<` does (UTF-16 code units). The two differ only when
 * a character above U+FFFF (an emoji, stored as a surrogate pair) meets one from U+E000 to
 * U+FFFF: JavaScript puts the emoji first, SQLite last. Rows read from SQLite in keyset pages and
 * merged here must sort the SQLite way, or the next page's `tx < ?` skips or repeats a row. The
 * API takes ASCII transactionIds only, so this guards the merge rather than fixing a reachable case.
 */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const xs = x >= 0xd800 && x <= 0xdfff;
    const ys = y >= 0xd800 && y <= 0xdfff;
    // A surrogate is part of a code point above U+FFFF: after every unit that is a code point itself.
    if (xs !== ys) return xs ? 1 : -1;
    return x - y;
  }
  return a.length - b.length;
}
