import { hex } from "./hex";

/**
 * Random bytes for ids, drawn from the CSPRNG a block at a time: one getRandomValues call per
 * 256 ids instead of one per id (the accept path makes one or two ids per trigger).
 */
const POOL = new Uint8Array(16 * 256);
let pooled = POOL.length;
function randomBytes16(): Uint8Array {
  if (pooled === POOL.length) {
    crypto.getRandomValues(POOL);
    pooled = 0;
  }
  const bytes = POOL.slice(pooled, pooled + 16);
  pooled += 16;
  return bytes;
}

let lastMs = 0;
let sequence = 0;

/**
 * RFC 9562 UUIDv7 as 32 hex digits: 48-bit millisecond timestamp, a 12-bit sequence (method 1 of
 * section 6.2), then randomness. Ids made in the same millisecond by one isolate still sort in
 * creation order, which keeps a message's tracking events in order.
 */
function uuidv7Hex(now: number): string {
  const bytes = randomBytes16();
  if (now <= lastMs) {
    sequence++;
    if (sequence > 0xfff) {
      lastMs++;
      sequence = 0;
    }
    now = lastMs;
  } else {
    lastMs = now;
    sequence = bytes[7]! & 0x3f; // a random start leaves room for thousands of ids in the same millisecond
  }
  bytes[6] = 0x70 | ((sequence >> 8) & 0x0f);
  bytes[7] = sequence & 0xff;
  let ts = now;
  for (let i = 5; i >= 0; i--) {
    bytes[i] = ts & 0xff;
    ts = Math.floor(ts / 256);
  }
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  return hex(bytes);
}

/** A UUIDv7 (`uuidv7Hex`) in its dashed form. */
export function uuidv7(now = Date.now()): string {
  const h = uuidv7Hex(now);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export type IdPrefix =
  | "env"
  | "key"
  | "sub"
  | "wf"
  | "wfv"
  | "msg"
  | "evt"
  | "top"
  | "int"
  | "var"
  | "cap"
  | "ep"
  | "att"
  | "act"
  | "aud"
  | "lay"
  | "lyv"
  | "prt"
  | "prv"
  | "brv"
  | "trv"
  | "prp";

/** Prefixed, time-ordered ids so a reader of a log knows what an id names. */
export const newId = (prefix: IdPrefix) => `${prefix}_${uuidv7Hex(Date.now())}`;

/**
 * A log row's id: a UUIDv7's time and sequence, version 8 (RFC 9562's custom layout), and the
 * last 32 bits the row's partition hash instead of randomness. Whoever holds the id finds the log
 * shard that holds the row (hash mod the shard count) without asking anything, for any shard
 * count; an id of version 7 was made before the log left D1.
 */
export function newLogId(prefix: "msg", partition: number): string {
  const v7 = uuidv7Hex(Date.now());
  return `${prefix}_${v7.slice(0, 12)}8${v7.slice(13, 24)}${(partition >>> 0).toString(16).padStart(8, "0")}`;
}

/** The partition hash a log row's id carries; null for an id made before the log left D1 (or not an id). */
export function partitionOfId(id: string): number | null {
  const hex = id.slice(id.indexOf("_") + 1);
  if (hex.length !== 32 || hex[12] !== "8") return null;
  const partition = Number.parseInt(hex.slice(24), 16);
  return Number.isNaN(partition) ? null : partition;
}

/**
 * The millisecond a time-ordered id (UUIDv7, or a log id of version 8) was made, from its first
 * 48 bits; null for anything else. A log row's generation comes from it (log-naming.ts), so an
 * update, event or feed action by id finds its shard without a lookup.
 */
export function timeOfId(id: string): number | null {
  const hex = id.slice(id.indexOf("_") + 1).replaceAll("-", "");
  if (hex.length !== 32 || (hex[12] !== "7" && hex[12] !== "8")) return null;
  const ms = Number.parseInt(hex.slice(0, 12), 16);
  return Number.isNaN(ms) ? null : ms;
}
