/** Each byte's two hex digits, made once: the accept path writes several ids and hashes per trigger. */
const DIGITS = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** Lowercase hex of the bytes (a lookup per byte, not a number-to-string and a pad). */
export function hex(bytes: Uint8Array | ArrayBuffer): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let out = "";
  for (let i = 0; i < view.length; i++) out += DIGITS[view[i]!]!;
  return out;
}
