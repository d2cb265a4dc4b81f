const hex = (bytes: Uint8Array) => Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");

/** RFC 9562 UUIDv7: 48-bit millisecond timestamp, then randomness, so ids sort by creation time. */
export function uuidv7(now = Date.now()): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let ts = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ts & 0xff;
    ts = Math.floor(ts / 256);
  }
  bytes[6] = (bytes[6]! & 0x0f) | 0x70;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const h = hex(bytes);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export type IdPrefix = "env" | "key" | "sub" | "wf" | "msg" | "evt" | "top" | "int" | "var" | "cap";

/** Prefixed, time-ordered ids so a reader of a log knows what an id names. */
export const newId = (prefix: IdPrefix) => `${prefix}_${uuidv7().replaceAll("-", "")}`;
