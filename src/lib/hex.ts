/** Each byte's two hex digits, made once: for a runtime without Uint8Array's `toHex` (Node 22). */
const DIGITS = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

/** The TC39 `toHex` of Uint8Array, which V8 in the Workers runtime has; TypeScript's ES2024 lib does not declare it yet. */
declare global {
  interface Uint8Array {
    toHex(): string;
  }
}

const NATIVE = typeof Uint8Array.prototype.toHex === "function";

/** Lowercase hex of the bytes: natively where the runtime can (ids and hashes on every trigger and message), else a lookup per byte. */
export function hex(bytes: Uint8Array | ArrayBuffer): string {
  const view = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  if (NATIVE) return view.toHex();
  let out = "";
  for (let i = 0; i < view.length; i++) out += DIGITS[view[i]!]!;
  return out;
}
