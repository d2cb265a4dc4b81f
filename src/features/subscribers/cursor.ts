import { z } from "@hono/zod-openapi";

// The list cursor is the last subscriberId of a page, opaque to clients so the order can change
// later without breaking their code. A cursor that does not decode is a client error.
const PREFIX = "s:";

export const encodeCursor = (subscriberId: string) =>
  btoa(String.fromCharCode(...new TextEncoder().encode(PREFIX + subscriberId)))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

export function decodeCursor(cursor: string): string | null {
  try {
    const binary = atob(cursor.replaceAll("-", "+").replaceAll("_", "/"));
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
    return text.startsWith(PREFIX) && text.length > PREFIX.length ? text.slice(PREFIX.length) : null;
  } catch {
    return null;
  }
}

export const SubscriberCursor = z
  .string()
  .max(1024)
  .refine((cursor) => decodeCursor(cursor) !== null, "Not a cursor of this list: pass the `nextCursor` of the previous page.");
